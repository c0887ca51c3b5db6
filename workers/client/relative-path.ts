// webkitRelativePath as browsers write it, for the page (which checks a pick) and the engine
// (which rebuilds the folder from it).

/**
 * A webkitRelativePath with its last component put back as the file's own name: Chromium
 * writes each backslash of the path as "/" (a file "back\\slash" comes as ".../back/slash"),
 * and File.name keeps the name whole. (A folder name with a backslash cannot be told apart
 * from two folders this way, and stays split.)
 */
export function withFileName(rel: string, name: string): string {
  if (!name.includes('\\') || rel.endsWith('/' + name)) return rel;
  const mangled = '/' + name.replaceAll('\\', '/');
  return rel.endsWith(mangled) ? rel.slice(0, rel.length - mangled.length + 1) + name : rel;
}
