// Preloaded (node -r) into `mcpb pack`, which stamps every entry of the archive with the
// moment of packing (new Date()): the clock reads SOURCE_DATE_EPOCH instead, so the same
// files make the same winagent.mcpb. Dates made from a value are left alone.
"use strict";
const epoch = Number(process.env.SOURCE_DATE_EPOCH) * 1000;
if (!Number.isFinite(epoch)) throw new Error("fixed_clock: SOURCE_DATE_EPOCH is not set");
const RealDate = Date;
class FixedDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(epoch);
    else super(...args);
  }
  static now() {
    return epoch;
  }
}
globalThis.Date = FixedDate;
