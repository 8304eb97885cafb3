// Writes F.br (brotli, quality 11) beside each file F named on the command line, for
// scripts/serve_dist.py to send with `Content-Encoding: br`, and prints one line per file:
// its name relative to DIST, raw size and brotli size in bytes. Node's own zlib, so no
// brotli tool is needed on the machine. Run by scripts/build-site.sh (which writes the .gz
// copies with GNU gzip -9, the figure the bundle budget has always been measured in).
//
//   node scripts/precompress.mjs DIST FILE...
import { readFileSync, writeFileSync } from 'node:fs';
import { brotliCompressSync, constants } from 'node:zlib';

const [dist, ...files] = process.argv.slice(2);
for (const file of files) {
  const raw = readFileSync(file);
  const br = brotliCompressSync(raw, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
    },
  });
  writeFileSync(`${file}.br`, br);
  const name = file.startsWith(`${dist}/`) ? file.slice(dist.length + 1) : file;
  console.log(`${name}\t${raw.length}\t${br.length}`);
}
