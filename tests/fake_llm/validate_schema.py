#!/usr/bin/env python3
"""Validate JSON documents against one definition of a JSON/OpenAPI schema file.

Written for specs/openai-chat-completions.schema.json (OpenAI's OpenAPI description of
Chat Completions requests): it supports what that file uses -- type (also lists),
nullable, enum, properties, required,
additionalProperties, items, minItems/maxItems, minimum/maximum, minLength/maxLength,
pattern, anyOf, oneOf (exactly one branch), allOf and local $ref. Annotations
(description, format, discriminator, default, x-*) are ignored.

    validate_schema.py --schema FILE --definition NAME (--records REC.jsonl | --json DOC)

--records takes the fake LLM server's JSONL request records and validates the body of
every OpenAI request; --json validates one JSON document file. Exit status: 0 all
valid, 1 something invalid (each error printed), 2 bad usage or no document to check.
Standard library only.
"""

import argparse
import json
import re
import sys

TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool)
    or (isinstance(v, float) and v.is_integer()),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


class Validator:
    def __init__(self, document):
        self.document = document

    def resolve(self, ref):
        if not ref.startswith("#"):
            raise ValueError("only local $ref is supported: %s" % ref)
        node = self.document
        for part in ref[1:].split("/")[1:]:
            part = part.replace("~1", "/").replace("~0", "~")
            node = node[int(part)] if isinstance(node, list) else node[part]
        return node

    def errors(self, value, schema, path="$", depth=0):
        """A list of "path: problem" strings; empty when value is valid."""
        if depth > 200:
            return ["%s: schema nesting too deep" % path]
        if schema is True or schema == {}:
            return []
        if schema is False:
            return ["%s: no value is allowed here" % path]
        if "$ref" in schema:
            target = self.resolve(schema["$ref"])
            errs = self.errors(value, target, path, depth + 1)
            rest = {k: v for k, v in schema.items() if k != "$ref"}
            return errs + (self.errors(value, rest, path, depth + 1) if rest else [])
        if value is None and schema.get("nullable") is True:
            return []
        errs = []
        t = schema.get("type")
        if t is not None:
            names = t if isinstance(t, list) else [t]
            if not any(TYPES[n](value) for n in names if n in TYPES):
                return ["%s: expected %s, got %s" % (path, "/".join(names), _kind(value))]
        if "enum" in schema and value not in schema["enum"]:
            errs.append("%s: %r is not one of %r" % (path, value, schema["enum"]))
        if isinstance(value, dict):
            errs += self._object(value, schema, path, depth)
        if isinstance(value, list):
            errs += self._array(value, schema, path, depth)
        if isinstance(value, str):
            if "minLength" in schema and len(value) < schema["minLength"]:
                errs.append("%s: shorter than %d" % (path, schema["minLength"]))
            if "maxLength" in schema and len(value) > schema["maxLength"]:
                errs.append("%s: longer than %d" % (path, schema["maxLength"]))
            if "pattern" in schema and not re.search(schema["pattern"], value):
                errs.append("%s: does not match %s" % (path, schema["pattern"]))
        if TYPES["number"](value):
            if "minimum" in schema and value < schema["minimum"]:
                errs.append("%s: %r is below %r" % (path, value, schema["minimum"]))
            if "maximum" in schema and value > schema["maximum"]:
                errs.append("%s: %r is above %r" % (path, value, schema["maximum"]))
        for branch in schema.get("allOf", []):
            errs += self.errors(value, branch, path, depth + 1)
        if "anyOf" in schema:
            results = [self.errors(value, b, path, depth + 1) for b in schema["anyOf"]]
            if all(results):
                errs.append("%s: matches none of anyOf (%s)" % (path, _closest(results)))
        if "oneOf" in schema:
            results = [self.errors(value, b, path, depth + 1) for b in schema["oneOf"]]
            ok = sum(1 for r in results if not r)
            if ok == 0:
                errs.append("%s: matches none of oneOf (%s)" % (path, _closest(results)))
            elif ok > 1:
                errs.append("%s: matches %d branches of oneOf, not exactly one" % (path, ok))
        return errs

    def _object(self, value, schema, path, depth):
        errs = []
        for name in schema.get("required", []):
            if name not in value:
                errs.append("%s: missing required property %r" % (path, name))
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, v in value.items():
            sub = "%s.%s" % (path, key)
            if key in props:
                errs += self.errors(v, props[key], sub, depth + 1)
            elif extra is False:
                errs.append("%s: property not allowed" % sub)
            elif isinstance(extra, dict):
                errs += self.errors(v, extra, sub, depth + 1)
        return errs

    def _array(self, value, schema, path, depth):
        errs = []
        if "minItems" in schema and len(value) < schema["minItems"]:
            errs.append("%s: fewer than %d items" % (path, schema["minItems"]))
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            errs.append("%s: more than %d items" % (path, schema["maxItems"]))
        items = schema.get("items")
        if isinstance(items, dict):
            for i, v in enumerate(value):
                errs += self.errors(v, items, "%s[%d]" % (path, i), depth + 1)
        return errs


def _kind(value):
    for name in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if TYPES[name](value):
            return name
    return type(value).__name__


def _closest(results):
    """The errors of the branch that came nearest (fewest errors), for the message."""
    best = min(results, key=len)
    return "; ".join(best[:3])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--schema", required=True)
    ap.add_argument("--definition", required=True,
                    help="name under components/schemas (or definitions/$defs), or a #/ pointer")
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--records", help="fake_llm JSONL records: OpenAI request bodies are checked")
    src.add_argument("--json", help="one JSON document to check")
    args = ap.parse_args(argv)

    with open(args.schema, encoding="utf-8") as f:
        document = json.load(f)
    v = Validator(document)
    if args.definition.startswith("#"):
        target = v.resolve(args.definition)
    else:
        for base in ("components/schemas", "definitions", "$defs"):
            try:
                target = v.resolve("#/%s/%s" % (base, args.definition))
                break
            except (KeyError, TypeError):
                continue
        else:
            print("validate_schema: no definition %r in %s" % (args.definition, args.schema))
            return 2

    docs = []
    if args.json:
        with open(args.json, encoding="utf-8") as f:
            docs.append(("document", json.load(f)))
    else:
        with open(args.records, encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                rec = json.loads(line)
                if rec.get("provider") == "openai" and isinstance(rec.get("body"), dict):
                    docs.append(("request %s" % rec.get("n"), rec["body"]))
    if not docs:
        print("validate_schema: nothing to validate")
        return 2

    bad = 0
    for name, doc in docs:
        errs = v.errors(doc, target)
        for e in errs:
            print("validate_schema: %s: %s" % (name, e))
        bad += bool(errs)
    if bad:
        print("validate_schema: %d of %d invalid against %s" % (bad, len(docs), args.definition))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
