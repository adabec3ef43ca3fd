// MathJax 2 configuration for the written-answer pages (loaded before MathJax.js, from a file: URL).
// $...$ and $$...$$ as in Jupyter; the Safe extension stops \href, \style and friends from
// reaching links, styles or scripts; no menu, no zoom, no messages, no font warnings.
window.MathJax = {
  extensions: ["tex2jax.js", "Safe.js"],
  jax: ["input/TeX", "output/SVG"],
  tex2jax: {inlineMath: [["$", "$"], ["\\(", "\\)"]], displayMath: [["$$", "$$"], ["\\[", "\\]"]],
            processEscapes: true, processEnvironments: true,
            skipTags: ["script", "noscript", "style", "textarea", "pre", "code"]},
  TeX: {extensions: ["AMSmath.js", "AMSsymbols.js", "noErrors.js", "noUndefined.js"]},
  SVG: {font: "TeX"},
  showMathMenu: false, showProcessingMessages: false, messageStyle: "none",
  menuSettings: {zoom: "None"},
  skipStartupTypeset: false
};
