// Opens pages of winagent (report.html, index.html) in headless Chromium and prints,
// as one JSON object on stdout, facts read from the page itself: its step elements,
// every image's natural size, console errors, page errors, failed requests, every URL
// requested, the final answer, the index's rows and, when asked, the same facts of
// each page its links lead to.
//
//   node facts.mjs --chromium PATH --user-data-dir DIR --url URL
//                  [--keys j,j,k] [--follow] [--screenshot FILE.png [--full-page]]
//                  [--timeout-s N]
//
// Exit code 0 when the facts were gathered (whatever they say), 2 on a usage error,
// 3 when the browser could not be driven. The caller judges the facts.
import puppeteer from "puppeteer-core";

function parseArgs(argv) {
  const a = { keys: [], follow: false, fullPage: false, timeoutS: 60 };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const v = () => {
      if (i + 1 >= argv.length) throw new Error(`${k} needs a value`);
      return argv[++i];
    };
    if (k === "--chromium") a.chromium = v();
    else if (k === "--user-data-dir") a.userDataDir = v();
    else if (k === "--url") a.url = v();
    else if (k === "--keys") a.keys = v().split(",").filter(Boolean);
    else if (k === "--follow") a.follow = true;
    else if (k === "--screenshot") a.screenshot = v();
    else if (k === "--full-page") a.fullPage = true;
    else if (k === "--timeout-s") a.timeoutS = Number(v());
    else throw new Error(`unknown argument ${k}`);
  }
  if (!a.chromium || !a.userDataDir || !a.url) throw new Error("--chromium, --user-data-dir and --url are required");
  return a;
}

// Everything the page tells about itself, read in the page.
function readPage() {
  const text = (el) => (el ? el.textContent : null);
  const steps = Array.from(document.querySelectorAll("section.step"));
  return {
    title: document.title,
    steps: steps.length,
    stepIds: steps.map((s) => s.id),
    failedSteps: steps.filter((s) => s.classList.contains("failed")).map((s) => s.id),
    images: Array.from(document.images).map((img) => ({
      src: img.getAttribute("src"),
      naturalWidth: img.naturalWidth,
      naturalHeight: img.naturalHeight,
      complete: img.complete,
    })),
    trees: document.querySelectorAll("pre.tree").length,
    timingBars: Array.from(document.querySelectorAll(".timings .bar")).map((b) => ({
      phase: b.closest(".phase").querySelector(".name").textContent,
      width: b.getBoundingClientRect().width,
    })),
    finalAnswer: text(document.querySelector("#final-answer pre")),
    summary: text(document.querySelector("#summary")),
    summaryClass: document.querySelector("#summary")?.className ?? null,
    exitCode: document.querySelector("#summary")?.dataset.exitCode ?? null,
    rows: document.querySelectorAll("tr.run").length,
    links: Array.from(document.querySelectorAll("a[href]")).map((a) => ({
      href: a.href,
      text: a.textContent,
      inRow: !!a.closest("tr.run"),
    })),
    bodyText: document.body ? document.body.innerText : "",
  };
}

async function visit(browser, url, opts) {
  const page = await browser.newPage();
  const facts = { url, consoleErrors: [], pageErrors: [], failedRequests: [], requests: [] };
  page.on("console", (m) => {
    if (m.type() === "error") facts.consoleErrors.push(m.text());
  });
  page.on("pageerror", (e) => facts.pageErrors.push(String(e && e.message ? e.message : e)));
  page.on("request", (r) => facts.requests.push(r.url()));
  page.on("requestfailed", (r) =>
    facts.failedRequests.push({ url: r.url(), error: r.failure()?.errorText ?? "" }));
  const response = await page.goto(url, { waitUntil: "load", timeout: opts.timeoutS * 1000 });
  facts.loaded = !!response && (response.ok() || response.status() === 0);
  Object.assign(facts, await page.evaluate(readPage));
  if (opts.keys.length) {
    facts.focusAfterKeys = [];
    for (const k of opts.keys) {
      await page.keyboard.press(k);
      facts.focusAfterKeys.push(await page.evaluate(() => document.activeElement?.id ?? ""));
    }
  }
  if (opts.screenshot) await page.screenshot({ path: opts.screenshot, fullPage: opts.fullPage });
  await page.close();
  return facts;
}

async function main() {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`facts.mjs: ${e.message}\n`);
    process.exit(2);
  }
  // The caller also bounds us; this makes a hung browser end with a clear message.
  const timer = setTimeout(() => {
    process.stderr.write(`facts.mjs: gave up after ${args.timeoutS} s\n`);
    process.exit(3);
  }, args.timeoutS * 1000);
  const browser = await puppeteer.launch({
    executablePath: args.chromium,
    headless: true,
    userDataDir: args.userDataDir,
    pipe: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
           "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
           "--window-size=1280,900"],
    defaultViewport: { width: 1280, height: 900 },
  });
  try {
    const facts = await visit(browser, args.url, args);
    if (args.follow) {
      facts.followed = [];
      for (const link of facts.links.filter((l) => l.inRow))
        facts.followed.push(await visit(browser, link.href, { ...args, keys: [], screenshot: null }));
    }
    process.stdout.write(JSON.stringify(facts) + "\n");
  } finally {
    await browser.close();
    clearTimeout(timer);
  }
}

main().catch((e) => {
  process.stderr.write(`facts.mjs: ${e && e.stack ? e.stack : e}\n`);
  process.exit(3);
});
