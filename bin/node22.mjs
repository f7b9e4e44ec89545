// The Node the CLI needs, and the command that runs `pmail` on the Node at hand. Plain JavaScript
// with no imports, so bin/pmail.mjs can load it and say what to do on any Node with ES modules,
// before anything that needs a newer one is loaded.

/** The oldest Node major the CLI runs on (package.json engines). */
export const NODE_MAJOR = 22;

/** The major version of the Node running this. */
export function nodeMajor() {
  return Number(process.versions.node.split('.')[0]);
}

/** A shell word: kept as it is when plain, else in single quotes. */
function shellWord(s) {
  return /^[A-Za-z0-9@%+=:,./_-]+$/.test(s) ? s : "'" + s.split("'").join("'\\''") + "'";
}

/**
 * `pmail ARGS` as a command line that works on this Node: `npx pmail …` on Node 22 or newer; on an
 * older one the script itself run by the node@22 npm package, without installing it
 * (`npx -y -p node@22 -- node bin/pmail.mjs …`; an inner `npx pmail` would not find the project's
 * own bin there, as the outer npx's `npm_config_package` reaches it). `script` is bin/pmail.mjs's
 * path, shown relative to `cwd` when inside it.
 */
export function pmailCommand(args, script, cwd) {
  const words = args.map(shellWord).join(' ');
  if (nodeMajor() >= NODE_MAJOR) return ('npx pmail ' + words).trim();
  const inside = script.indexOf(cwd + '/') === 0 ? script.slice(cwd.length + 1) : script;
  return ('npx -y -p node@' + NODE_MAJOR + ' -- node ' + shellWord(inside) + ' ' + words).trim();
}
