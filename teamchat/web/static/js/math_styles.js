// KaTeX's HTML (math in messages) places its parts with style attributes, which the page's
// Content-Security-Policy (style-src 'self') does not apply from markup. Setting the same text
// through the CSSOM is allowed, so copy each one there, inside KaTeX's output only.

export function applyMathStyles(content) {
  for (const node of content.querySelectorAll(".katex [style]")) {
    node.style.cssText = node.getAttribute("style");
  }
}
