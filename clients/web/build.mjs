// Bundles the web table into dist/: app.js (esbuild, from src/main.ts), style.css and
// index.html (from static/, with each asset's content hash in its address so that a browser
// never keeps an old bundle after a rebuild). `npm run build` generates src/gen first.
import { createHash } from "node:crypto";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";

import { build } from "esbuild";

const out = new URL("./dist/", import.meta.url);
const hash = (text) => createHash("sha256").update(text).digest("hex").slice(0, 16);

await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });
const result = await build({
  entryPoints: ["src/main.ts"],
  bundle: true,
  format: "esm",
  target: ["es2022"],
  minify: true,
  sourcemap: "linked",
  outfile: "dist/app.js",
  legalComments: "none",
  logLevel: "warning",
  metafile: true,
});
const app = await readFile(new URL("app.js", out));
const style = await readFile(new URL("./static/style.css", import.meta.url));
await writeFile(new URL("style.css", out), style);
const page = (await readFile(new URL("./static/index.html", import.meta.url), "utf8"))
  .replace("@APP_HASH@", hash(app))
  .replace("@STYLE_HASH@", hash(style));
await writeFile(new URL("index.html", out), page);
const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
console.log(`dist/: app.js ${app.length} bytes (${bytes} with the source map), style.css, index.html`);
