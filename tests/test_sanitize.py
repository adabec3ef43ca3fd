"""The allow-list that cleans a student's rendered Markdown in the written-answer pages (flows/written/render.py).

The tests read the cleaned HTML back with the standard library's parser and state the rule as
properties, not as one sanitiser's exact output: every tag left is on the allow-list, every
attribute is one the rule admits for its tag, and what an answer legitimately holds (links,
embedded plots, tables, code, math) survives. The same tests passed with bleach before it was
replaced by nh3.
"""
from html.parser import HTMLParser

import pytest

from autograder.flows.written.render import ALLOWED_TAGS, markdown_html, sanitize

PNG = "data:image/png;base64,iVBORw0KGgo="
JPEG = "data:image/jpeg;base64,/9j/4AAQ"


class Elements(HTMLParser):
    """[(tag, {attribute: value})] of every start tag, and the text outside tags."""

    def __init__(self, html):
        super().__init__(convert_charrefs=True)
        self.found, self.text, self.comments = [], [], []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs)))

    def handle_startendtag(self, tag, attrs):
        self.found.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)

    def handle_comment(self, data):
        self.comments.append(data)


def elements(html):
    return Elements(html).found


def admitted(tag, name, value):
    """The rule, written out once more here: what the allow-list lets through."""
    if name in ("title", "alt"):
        return True
    if name == "rel" and tag == "a":  # a sanitiser may add rel="noopener noreferrer" to links: harmless
        return True
    if tag == "a" and name == "href":
        return value.strip().lower().startswith(("http:", "https:", "mailto:", "#"))
    if tag == "img" and name == "src":
        return value.strip().startswith(("data:image/png;base64,", "data:image/jpeg;base64,"))
    if tag in ("td", "th") and name in ("align", "colspan", "rowspan"):
        return True
    if tag == "ol" and name == "start":
        return value.isdigit()
    return name == "class" and tag in ("span", "div", "code", "pre")


HOSTILE = [
    "<script>document.body.innerHTML='x'</script>",
    "<style>body{display:none}</style>",
    "<iframe src='https://example.org'></iframe>",
    "<form action='https://example.org'><input name=q><button>go</button></form>",
    "<object data='x.swf'></object><embed src='x.swf'>",
    "<svg onload=alert(1)><circle r=5></circle></svg>",
    "<math><mi xlink:href='javascript:alert(1)'>x</mi></math>",
    "<img src=x onerror=alert(1)>",
    "<img src='data:image/svg+xml;base64,PHN2Zz4='>",
    "<img src='https://example.org/track.png'>",
    "<a href='javascript:alert(1)'>a</a>",
    "<a href=' JaVaScRiPt:alert(1)'>b</a>",
    "<a href='&#106;avascript:alert(1)'>c</a>",
    "<a href='vbscript:msgbox(1)'>d</a>",
    "<a href='data:text/html;base64,PHNjcmlwdD4='>e</a>",
    "<p onclick='alert(1)' style='color:red' id='x' class='evil'>p</p>",
    "<div style='position:fixed;top:0' onmouseover='alert(1)'>d</div>",
    "<td style='x' onclick='y' align='left'>cell</td>",
    "<ol start='1;alert(1)'><li>i</li></ol>",
    "<meta http-equiv='refresh' content='0;url=https://example.org'>",
    "<link rel='stylesheet' href='https://example.org/x.css'>",
    "<base href='https://example.org/'>",
    "<!-- a comment --><span>after</span>",
]


@pytest.mark.parametrize("html", HOSTILE)
def test_only_the_allow_list_survives(html):
    clean = sanitize(html)
    parsed = Elements(clean)
    for tag, attrs in parsed.found:
        assert tag in ALLOWED_TAGS, f"{tag!r} survived in {clean!r}"
        for name, value in attrs.items():
            assert admitted(tag, name, value or ""), f"{tag} {name}={value!r} survived in {clean!r}"
    assert not parsed.comments, clean
    lowered = clean.lower()
    for word in ("<script", "<style", "<iframe", "<form", "<svg", "<meta", "<link", "<base", "onerror", "onclick",
                 "onload", "onmouseover", "javascript:", "vbscript:"):
        assert word not in lowered, f"{word} in {clean!r}"


def test_what_an_answer_holds_survives():
    html = (f"<p>See <a href='https://pytorch.org/docs' title='docs'>the docs</a>, <a href='#q1'>Q1</a> and "
            f"<a href='mailto:ta@example.edu'>the TA</a>.</p>"
            f"<p><img src='{PNG}' alt='loss curve'> <img src='{JPEG}' alt='map'></p>"
            "<table><thead><tr><th align='right'>epoch</th></tr></thead>"
            "<tbody><tr><td align='right' colspan='2' rowspan='1'>3</td></tr></tbody></table>"
            "<ol start='3'><li>third</li></ol><pre class='highlight'><code class='language-python'>x = 1</code></pre>"
            "<div class='math'><span class='mi'>x</span></div><blockquote><em>e</em> <strong>s</strong> <sub>1</sub>"
            "<sup>2</sup> <kbd>k</kbd> <del>d</del></blockquote><details><summary>more</summary>hidden</details>")
    found = elements(sanitize(html))
    assert ("a", {"href": "https://pytorch.org/docs", "title": "docs"}) in [
        (t, {k: v for k, v in a.items() if k != "rel"}) for t, a in found]
    hrefs = [a.get("href") for t, a in found if t == "a"]
    assert hrefs == ["https://pytorch.org/docs", "#q1", "mailto:ta@example.edu"]
    assert [a["src"] for t, a in found if t == "img"] == [PNG, JPEG]
    assert [a.get("alt") for t, a in found if t == "img"] == ["loss curve", "map"]
    assert ("td", {"align": "right", "colspan": "2", "rowspan": "1"}) in found
    assert ("th", {"align": "right"}) in found and ("ol", {"start": "3"}) in found
    assert ("pre", {"class": "highlight"}) in found and ("code", {"class": "language-python"}) in found
    assert ("div", {"class": "math"}) in found and ("span", {"class": "mi"}) in found
    tags = {t for t, _ in found}
    assert {"blockquote", "em", "strong", "sub", "sup", "kbd", "del", "details", "summary", "table", "li"} <= tags


def test_a_tag_off_the_list_keeps_its_text():
    parsed = Elements(sanitize("<font color=red>kept words</font> <custom-tag>more words</custom-tag>"))
    assert not parsed.found
    assert "kept words" in "".join(parsed.text) and "more words" in "".join(parsed.text)


def test_text_that_looks_like_html_stays_text():
    clean = sanitize("<p>a &lt; b and 1 &lt;script&gt; 2</p>")
    parsed = Elements(clean)
    assert [t for t, _ in parsed.found] == ["p"]
    assert "".join(parsed.text) == "a < b and 1 <script> 2"


def test_markdown_answers_render_and_are_cleaned():
    """Through the renderer the pages use (nbconvert's Markdown with math): math kept for MathJax, HTML cleaned."""
    html = str(markdown_html("**Bold** and $a < b$ with `code`\n\n<script>alert(1)</script>\n\n"
                             "more <img src=x onerror=alert(1)> [link](javascript:alert(1)) [ok](https://example.org)"))
    assert "<strong>Bold</strong>" in html and "<code>code</code>" in html
    assert "a &lt; b" in html, "math stays as (escaped) TeX for MathJax"
    found = elements(html)
    assert not [t for t, _ in found if t == "script"]
    assert ("img", {}) in found, "the image without its handler"
    assert [a.get("href") for t, a in found if t == "a"] == [None, "https://example.org"]


# ---- unsafe_markup: which Markdown cells the nbgrader flow shows graders as text (SafeMarkdown) -------------------
SCRIPT = "<script>document.title='x'</script>"
RUNS_IN_A_BROWSER = {  # each ran its script in the formgrader's page in Chromium (red team of issue 23)
    "img_onerror": "See <img src=x onerror=alert(1)>",
    "script": SCRIPT,
    "javascript_link": "[notes](javascript:alert(1))",
    "mathjax_href": r"$\href{javascript:alert(1)}{x}$",
    "iframe": "<iframe src=https://example.org></iframe>",
    "comment_bang": f"<!-- --!>{SCRIPT} -->",
    "comment_abrupt": f"<!-->{SCRIPT}-->",
    "comment_abrupt2": f"<!--->{SCRIPT}-->",
    "cdata": f"<![CDATA[ >{SCRIPT} ]]>",
    "inline_cdata": f"text <![CDATA[ >{SCRIPT}]]> text",
    "inline_comment_bang": f"text <!-- --!>{SCRIPT} --> text",
}
HONEST = {
    "math": r"The scale is $\frac{1}{\sqrt{d_k}}$ and $a<b$, $x > 0$.",
    "code": "`x<y && z>w` and\n\n```python\nif a < b: pass  # <!-- not a comment -->\n```",
    "table": "| a | b |\n|---|---|\n| 1 | 2 |",
    "inline_html": "H<sub>2</sub>O, <b>bold</b>, a<br>break, <details><summary>more</summary>text</details>",
    "image": "![plot](data:image/png;base64,iVBORw0KGgo=)",
    "link": "[docs](https://pytorch.org/docs)",
}


@pytest.mark.parametrize("name", sorted(RUNS_IN_A_BROWSER))
def test_markup_that_runs_is_shown_as_text(name):
    from autograder.flows.written.render import unsafe_markup

    assert unsafe_markup(RUNS_IN_A_BROWSER[name])


@pytest.mark.parametrize("name", sorted(HONEST))
def test_honest_markup_is_shown_rendered(name):
    from autograder.flows.written.render import unsafe_markup

    assert unsafe_markup(HONEST[name]) is None
