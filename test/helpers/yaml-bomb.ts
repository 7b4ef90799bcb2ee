/**
 * YAML whose anchors each list the previous one nine times, `depth` levels deep: a few hundred
 * bytes that expand to 9^(depth + 1) nodes in a parser that follows aliases.
 */
export function yamlAliasBomb(depth: number): string {
  let s = 'a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n';
  for (let i = 1; i <= depth; i++)
    s += `a${i}: &a${i} [${Array(9)
      .fill(`*a${i - 1}`)
      .join(',')}]\n`;
  return s;
}
