// Every piece of text that came from the API goes into the page as a text node, never as markup.
type Child = Node | string | null | undefined | false;

export interface ElementProps {
  class?: string;
  attrs?: Record<string, string>;
  text?: string;
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: ElementProps = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props.class) node.className = props.class;
  for (const [name, value] of Object.entries(props.attrs ?? {})) node.setAttribute(name, value);
  if (props.text !== undefined) node.textContent = props.text;
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return node;
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`page is missing #${id}`);
  return node as T;
}

export function clear(node: Element): void {
  node.replaceChildren();
}
