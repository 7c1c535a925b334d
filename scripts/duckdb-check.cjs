// Reads a dataset folder written by `agentdesk export --format parquet` with DuckDB (a reader
// nobody here wrote) and checks it against its own card:
//   - every config the card names points at files that exist (its data_files globs match), and
//     each split holds the num_examples the card gives it (the datasets library checks them);
//   - DuckDB reads every file of it, and each column has the type the card's features give;
//   - every image decodes as far as its header: PNG or JPEG magic and positive dimensions.
// Prints {"rows": {config: n}, "values": {config: {column: n}}, "images": n, "checked": [...]}
// on stdout ("values" counts each column's non-null values: what a reader takes for null) and
// exits 1 naming each problem on stderr.
// Usage: node scripts/duckdb-check.cjs DUCKDB_DIR DATASET_DIR
//   DUCKDB_DIR holds node_modules/@duckdb/node-api (scripts/duckdb-deps.sh prints it).
'use strict';
const fs = require('fs');
const path = require('path');
const { createRequire } = require('module');

const [duckdbDir, dataset] = process.argv.slice(2);
if (!duckdbDir || !dataset) {
  console.error('usage: node duckdb-check.cjs DUCKDB_DIR DATASET_DIR');
  process.exit(2);
}
const { DuckDBInstance } = createRequire(path.join(path.resolve(duckdbDir), 'package.json'))('@duckdb/node-api');

const problems = [];
const problem = (msg) => problems.push(msg);

// The card's YAML header, read line by line (the subset the Hub's cards use for configs and
// dataset_info: lists of maps two spaces deeper per level).
function readCard(file) {
  const text = fs.readFileSync(file, 'utf8');
  const m = text.match(/^---\n([\s\S]*?)\n---\n/);
  if (!m) throw new Error(`${file}: no YAML header`);
  const configs = {}; // name -> [{split, path}]
  const features = {}; // name -> [{name, dtype}]
  const examples = {}; // name -> {split: num_examples}
  let splitName = null;
  let section = '', cur = null, item = null;
  const unquote = (s) => s.trim().replace(/^"(.*)"$/, '$1');
  m[1].split('\n').forEach((line, i) => {
    const at = `${file}:${i + 2}`;
    let mm;
    if ((mm = line.match(/^(\w+):\s*$/))) { section = mm[1]; cur = null; return; }
    if ((mm = line.match(/^- config_name:\s*(.+)$/))) {
      cur = unquote(mm[1]);
      if (section === 'configs') configs[cur] = [];
      else if (section === 'dataset_info') features[cur] = [];
      return;
    }
    if (cur === null) return;
    if (section === 'configs') {
      if ((mm = line.match(/^  - split:\s*(.+)$/))) { item = { split: unquote(mm[1]) }; configs[cur].push(item); }
      else if ((mm = line.match(/^    path:\s*(.+)$/))) { if (!item) problem(`${at}: path without split`); else item.path = unquote(mm[1]); }
    } else if (section === 'dataset_info') {
      if (item === 'splits' && (mm = line.match(/^  - name:\s*(.+)$/))) {
        splitName = unquote(mm[1]);
      } else if (item === 'splits' && (mm = line.match(/^    num_examples:\s*(\d+)$/))) {
        (examples[cur] = examples[cur] || {})[splitName] = Number(mm[1]);
      } else if (item !== 'splits' && (mm = line.match(/^  - name:\s*(.+)$/))) {
        features[cur].push({ name: unquote(mm[1]) });
      } else if ((mm = line.match(/^    (dtype|sequence):\s*(.+)$/))) {
        const f = features[cur][features[cur].length - 1];
        if (f) f.dtype = (mm[1] === 'sequence' ? 'sequence:' : '') + unquote(mm[2]);
      } else if (line.match(/^  splits:/)) { item = 'splits'; return; }
      else if (line.match(/^  features:/)) { item = null; }
    }
  });
  return { configs, features, examples };
}

// DuckDB's type for a card dtype.
function duckType(dtype) {
  switch (dtype) {
    case 'string': return ['VARCHAR'];
    case 'int64': return ['BIGINT'];
    case 'float64': return ['DOUBLE'];
    case 'image': return ['STRUCT("bytes" BLOB, path VARCHAR)', 'STRUCT(bytes BLOB, path VARCHAR)'];
    case 'sequence:string': return ['VARCHAR[]'];
    case 'timestamp[ms, tz=UTC]': return ['TIMESTAMP WITH TIME ZONE'];
  }
  return [];
}

function globToRegExp(glob) {
  return new RegExp('^' + glob.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*') + '$');
}

function imageSize(b) {
  if (b.length >= 24 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) {
    const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
    return { kind: 'png', w: dv.getUint32(16), h: dv.getUint32(20) };
  }
  if (b.length > 4 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) {
    let i = 2;
    while (i + 9 < b.length && b[i] === 0xff) {
      const marker = b[i + 1];
      if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) { i += 2; continue; }
      const len = (b[i + 2] << 8) | b[i + 3];
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { kind: 'jpeg', h: (b[i + 5] << 8) | b[i + 6], w: (b[i + 7] << 8) | b[i + 8] };
      }
      i += 2 + len;
    }
  }
  return null;
}

const sqlString = (s) => "'" + s.replace(/'/g, "''") + "'";

async function main() {
  const card = readCard(path.join(dataset, 'README.md'));
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  const out = { rows: {}, values: {}, images: 0, checked: [] };
  if (Object.keys(card.configs).length === 0) problem('the card names no config');
  for (const [config, files] of Object.entries(card.configs)) {
    out.rows[config] = 0;
    for (const { split, path: glob } of files) {
      if (!glob) { problem(`config ${config} split ${split}: no path`); continue; }
      const dir = path.join(dataset, path.dirname(glob));
      const re = globToRegExp(path.basename(glob));
      const matched = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => re.test(f)) : [];
      if (matched.length === 0) { problem(`config ${config} split ${split}: ${glob} matches no file`); continue; }
      const source = `read_parquet(${sqlString(path.join(dataset, glob))})`;
      const count = (await conn.runAndReadAll(`SELECT count(*)::BIGINT AS n FROM ${source}`)).getRowObjectsJS()[0].n;
      out.rows[config] += Number(count);
      const want = (card.examples[config] || {})[split];
      if (want === undefined) problem(`config ${config} split ${split}: the card's dataset_info gives no num_examples`);
      else if (want !== Number(count)) problem(`config ${config} split ${split}: DuckDB reads ${count} rows, the card says num_examples ${want}`);
      const described = (await conn.runAndReadAll(`DESCRIBE SELECT * FROM ${source}`)).getRowObjectsJS();
      const types = Object.fromEntries(described.map((r) => [r.column_name, r.column_type]));
      const feats = card.features[config] || [];
      if (feats.length === 0) problem(`config ${config}: the card's dataset_info has no features for it`);
      for (const f of feats) {
        const want = duckType(f.dtype);
        if (!(f.name in types)) problem(`config ${config}: column ${f.name} (card: ${f.dtype}) is not in ${glob}`);
        else if (!want.includes(types[f.name])) problem(`config ${config}: column ${f.name} is ${types[f.name]} in DuckDB, the card says ${f.dtype}`);
      }
      for (const name of Object.keys(types)) {
        if (!feats.some((f) => f.name === name)) problem(`config ${config}: column ${name} is not in the card`);
      }
      out.checked.push(`${config}/${split}: ${matched.length} files`);
      const names = Object.keys(types);
      if (names.length > 0) {
        const counts = (await conn.runAndReadAll(`SELECT ${names.map((n, i) => `count("${n}")::BIGINT AS c${i}`).join(', ')} FROM ${source}`)).getRowObjectsJS()[0];
        const v = (out.values[config] = out.values[config] || {});
        names.forEach((n, i) => { v[n] = (v[n] || 0) + Number(counts[`c${i}`]); });
      }
      if (feats.some((f) => f.dtype === 'image')) {
        const images = (await conn.runAndReadAll(
          `SELECT episode_id, step, image.bytes AS b, image.path AS p FROM ${source} WHERE image IS NOT NULL`)).getRowObjects();
        for (const r of images) {
          const sz = r.b ? imageSize(r.b.bytes) : null;
          if (!sz || !(sz.w > 0 && sz.h > 0)) problem(`${glob}: episode ${r.episode_id} step ${r.step}: image does not decode`);
          else out.images++;
        }
      }
    }
  }
  console.log(JSON.stringify(out));
  if (problems.length > 0) {
    for (const p of problems) console.error(p);
    process.exit(1);
  }
}

main().catch((e) => { console.error(String(e && e.stack || e)); process.exit(1); });
