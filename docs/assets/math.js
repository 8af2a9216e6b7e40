// Typesets the notebook pages' $...$ and $$...$$ with the KaTeX shipped in assets/katex/
// (no CDN: the site reads the same offline, opened from disk). Code (<pre>, <code>) is left alone.
document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll(".jupyter-wrapper").forEach(function (el) {
    renderMathInElement(el, {
      delimiters: [
        {left: "$$", right: "$$", display: true},
        {left: "\\[", right: "\\]", display: true},
        {left: "$", right: "$", display: false},
        {left: "\\(", right: "\\)", display: false}
      ],
      ignoredClasses: ["clipboard-copy-txt"],  // the copy button's hidden source text
      throwOnError: false
    });
  });
});
