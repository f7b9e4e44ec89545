// Generates pmail/types.py (the API's types as TypedDicts, and its error codes) from the
// repository's openapi.yaml: `npm run generate:python`. `render()` is also what the staleness test
// compares the file with. Python 3.9 has no Required/NotRequired, so each type is the union of two
// functional TypedDicts, its required keys (total) and its optional ones (total=False); the
// functional form also admits keys that are Python keywords (`from`).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse } from 'yaml';

const here = dirname(fileURLToPath(import.meta.url));
export const specPath = join(here, '../../../openapi.yaml');
export const typesPath = join(here, '../pmail/types.py');

const pascal = (s) => s.replace(/(^|_)([a-z0-9])/g, (_, __, c) => c.toUpperCase());
const quote = (s) => JSON.stringify(s);
/** A literal value in Python: a string, a number, True/False/None. */
const literal = (v) => (v === null ? 'None' : v === true ? 'True' : v === false ? 'False' : quote(v));
const ORIGIN = '#/components/schemas/';
/** The class of an inline object in property `prop` of `parent`: `Error.error` is ErrorBody. */
const childName = (parent, prop) => (pascal(prop) === parent ? `${parent}Body` : parent + pascal(prop));

export function render(spec = parse(readFileSync(specPath, 'utf8'))) {
  const schemas = spec.components.schemas;
  const out = [];
  const emitted = new Set();

  /** The schema a `$ref` names: a component, or a property inside one (`Error/properties/error`). */
  const resolve = (ref) => {
    const parts = ref.slice(ORIGIN.length).split('/');
    let s = schemas[parts[0]];
    for (const p of parts.slice(1)) s = s[p];
    return s;
  };
  /** The Python name a `$ref` stands for: the component, or the class made of an inline object. */
  const refName = (ref) => {
    const parts = ref.slice(ORIGIN.length).split('/');
    let name = parts[0];
    for (let i = 1; i < parts.length; i += 2) name = childName(name, parts[i + 1]);
    return name;
  };

  /** Properties and required keys of an object schema, allOf flattened. */
  const fieldsOf = (s) => {
    if (s.$ref) return fieldsOf(resolve(s.$ref));
    const props = { ...(s.properties ?? {}) };
    const required = new Set(s.required ?? []);
    for (const part of s.allOf ?? []) {
      const f = fieldsOf(part);
      Object.assign(props, f.props);
      for (const r of f.required) required.add(r);
    }
    return { props, required };
  };
  const isObjectClass = (s) => !!(s.properties || s.allOf);

  /** The Python type of a schema; an inline object with properties becomes class `name`. */
  const typeOf = (s, name) => {
    if (s.$ref) {
      // A component by its name; a schema inside one (`Error/properties/error`) as itself.
      return s.$ref.slice(ORIGIN.length).includes('/')
        ? typeOf(resolve(s.$ref), refName(s.$ref))
        : quote(refName(s.$ref));
    }
    if (s.const !== undefined) return `Literal[${literal(s.const)}]`;
    const members = (s.anyOf ?? s.oneOf ?? []).filter((m) => m.$ref || m.type || m.properties || m.const);
    if (members.length > 0) {
      const types = members.map((m, i) => typeOf(m, members.length > 1 ? `${name}${i}` : name));
      return unionOf(types);
    }
    if (s.allOf?.length === 1 && !s.properties) return typeOf(s.allOf[0], name);
    if (Array.isArray(s.type)) {
      return unionOf(s.type.map((t) => typeOf({ ...s, type: t }, name)));
    }
    switch (s.type) {
      case 'null':
        return 'None';
      case 'string':
        return s.enum ? `Literal[${s.enum.map(literal).join(', ')}]` : 'str';
      case 'integer':
        return s.enum ? `Literal[${s.enum.join(', ')}]` : 'int';
      case 'number':
        return 'float';
      case 'boolean':
        return 'bool';
      case 'array':
        return `List[${s.items ? typeOf(s.items, `${name}Item`) : 'Any'}]`;
      default:
        if (isObjectClass(s)) {
          emitClass(name, s);
          return quote(name);
        }
        if (typeof s.additionalProperties === 'object') {
          return `Dict[str, ${typeOf(s.additionalProperties, `${name}Value`)}]`;
        }
        return 'Dict[str, Any]';
    }
  };
  const unionOf = (types) => {
    const uniq = [...new Set(types)];
    const nonNull = uniq.filter((t) => t !== 'None');
    const inner = nonNull.length === 1 ? nonNull[0] : `Union[${nonNull.join(', ')}]`;
    return uniq.includes('None') ? `Optional[${inner}]` : inner;
  };

  const docOf = (s) => (s.description ?? '').trim().split('\n')[0].replace(/"""/g, "'''").replace(/\\/g, '/');

  /** `name` as a TypedDict: its required keys and its optional ones, each with its type. */
  function emitClass(name, s) {
    if (emitted.has(name)) return;
    emitted.add(name);
    const { props, required } = fieldsOf(s);
    const keys = Object.keys(props);
    const dict = (want) => {
      const lines = keys
        .filter((k) => required.has(k) === want)
        .map((k) => `        ${quote(k)}: ${typeOf(props[k], childName(name, k))},`);
      return lines.length ? `{\n${lines.join('\n')}\n    }` : '{}';
    };
    const block = [
      `_${name}Required = TypedDict(\n    ${quote(`_${name}Required`)},\n    ${dict(true)},\n)`,
      `_${name}Optional = TypedDict(\n    ${quote(`_${name}Optional`)},\n    ${dict(false)},\n    total=False,\n)`,
      `class ${name}(_${name}Required, _${name}Optional):\n    """${docOf(s) || name}"""`,
    ];
    out.push(block.join('\n\n\n'));
  }

  for (const [name, s] of Object.entries(schemas)) {
    if (isObjectClass(s) || s.type === 'object') emitClass(name, { type: 'object', ...s });
    else {
      const t = typeOf(s, name);
      out.push(`${name} = ${t}\n"""${docOf(s) || name}"""`);
    }
  }

  const codes = Object.entries(spec['x-error-codes'])
    .map(([code, status]) => `    ${quote(code)}: ${status},`)
    .join('\n');
  return [
    '# Generated from openapi.yaml by `npm run generate:python`. Do not edit.',
    '"""The pmail API\'s objects as TypedDicts (openapi.yaml › components.schemas), and its error',
    'codes with their HTTP status (openapi.yaml › x-error-codes)."""',
    '',
    'from typing import Any, Dict, List, Literal, Optional, TypedDict, Union',
    '',
    '',
    `ERROR_CODES: Dict[str, int] = {\n${codes}\n}`,
    '"""Every error code the API answers with, and its HTTP status."""',
    '',
    '',
    ...out.flatMap((block) => [block, '', '']),
  ]
    .join('\n')
    .replace(/\n{3,}$/, '\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  writeFileSync(typesPath, render());
  console.log(`wrote ${typesPath}`);
}
