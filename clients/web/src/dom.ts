/**
 * Building the page without markup strings: every element is made with createElement and every
 * text, the server's above all, goes in as a text node. Nothing here (or anywhere in the web
 * table) hands a string to the HTML parser, so a display name or a variant's label can never
 * become markup (tests/web checks the sources for it).
 */

/** A child of an element: a node, a text (made a text node), or nothing. */
export type Child = Node | string | number | bigint | null | undefined | false;

/** Attributes: strings, numbers and booleans (true sets an empty attribute, false none). */
export type Attributes = Record<string, string | number | boolean | undefined>;

/**
 * Control and bidi-override characters out of a server string, as the terminal client does
 * (clients/safe.py): a name cannot turn the text around it or hide in it.
 */
export function clean(text: string): string {
  // C0/C1 controls (tab and newline kept), bidi embeddings, overrides and isolates.
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, "");
}

/** An element with attributes and children; strings become text nodes (never markup). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K, attributes: Attributes = {}, ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (name === "class") node.className = String(value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  append(node, ...children);
  return node;
}

/** Append children to a node: strings as text nodes. */
export function append(node: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replace every child of `node`. */
export function replace(node: Node, ...children: Child[]): void {
  while (node.firstChild) node.removeChild(node.firstChild);
  append(node, ...children);
}

/** A button that runs `action` on click. */
export function button(label: Child | Child[], action: () => void, attributes: Attributes = {}
): HTMLButtonElement {
  const node = el("button", { type: "button", ...attributes }, ...(Array.isArray(label) ? label : [label]));
  node.addEventListener("click", (event) => {
    event.preventDefault();
    action();
  });
  return node;
}

/** A fragment of children, for building a line from pieces. */
export function fragment(...children: Child[]): DocumentFragment {
  const node = document.createDocumentFragment();
  append(node, ...children);
  return node;
}

/** Join nodes with a separator text between them. */
export function joined(parts: Child[], separator: string): DocumentFragment {
  const node = document.createDocumentFragment();
  parts.forEach((part, index) => {
    if (index > 0) append(node, separator);
    append(node, part);
  });
  return node;
}
