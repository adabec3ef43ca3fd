"""HTML pages and PDFs of the written answers.

* **Markdown** is rendered by nbconvert's own filter (``MarkdownWithMath`` with nbconvert's
  ``IPythonRenderer``: what Jupyter's HTML export uses), math left as ``$...$`` for MathJax;
  code is highlighted by Pygments. Pages come from the Jinja templates in ``templates/``
  (autoescaped: every string a student controls is escaped unless it went through the sanitiser).
* **Student text is untrusted.** The rendered Markdown goes through nh3 (bindings to the Rust
  sanitiser ammonia; bleach, which nbconvert still uses, is deprecated) with an allow-list of
  tags and attributes: no script, style, iframe, form or event handler survives (script and
  style lose their content too), links keep http/https/mailto only, images only
  ``data:image/png`` or ``data:image/jpeg``. Each page also carries a Content-Security-Policy meta tag: scripts only
  from ``file:`` (the local MathJax and its configuration), images only embedded, nothing from
  the network. MathJax runs with its Safe extension.
* **Math** is typeset by MathJax 2 from Debian's ``libjs-mathjax`` (``/usr/share/javascript/mathjax``),
  SVG output: no CDN, no web fonts. Without it, math stays as TeX source.
* **PDF** by headless Chromium (Debian's ``chromium``) printing the student's page
  (``--print-to-pdf``), with no network (a dead proxy, every host name unresolvable), a
  throw-away profile, and a virtual-time budget so MathJax finishes before the page is printed.
  ``make install-pdf`` installs both packages.
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...assignment import NAME

if TYPE_CHECKING:
    from markupsafe import Markup

    from .extract import Question, Written

HERE = Path(__file__).resolve().parent
MATHJAX_DIR = Path(os.environ.get("WRITTEN_MATHJAX_DIR", "/usr/share/javascript/mathjax"))
MATHJAX_CONFIG = "TeX-AMS_SVG-full"
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
PDF_SECONDS = 120  # Chromium printing one student's page: the TAs' tool, no submission's code runs (not a limit)
INSTALL_HINT = "run `make install-pdf` (as root: apt-get install chromium libjs-mathjax)"

ALLOWED_TAGS = {
    "a", "abbr", "acronym", "b", "blockquote", "br", "code", "dd", "del", "details", "div", "dl", "dt", "em",
    "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "ins", "kbd", "li", "ol", "p", "pre", "q", "s",
    "samp", "small", "span", "strike", "strong", "sub", "summary", "sup", "table", "tbody", "td", "tfoot",
    "th", "thead", "tr", "tt", "u", "ul", "var",
}
SAFE_IMAGE = re.compile(r"^data:image/(png|jpeg);base64,[A-Za-z0-9+/=\s]*$")
SAFE_LINK = re.compile(r"^(https?:|mailto:|#)", re.I)


class PdfError(Exception):
    """Chromium could not make a PDF; the message says why."""


# ---- Markdown, sanitised ------------------------------------------------------------------------

def _attribute(tag: str, name: str, value: str) -> bool:
    if name in ("title", "alt"):
        return True
    if tag == "a" and name == "href":
        return bool(SAFE_LINK.match(value.strip()))
    if tag == "img" and name == "src":
        return bool(SAFE_IMAGE.match(value.strip()))
    if tag in ("td", "th") and name in ("align", "colspan", "rowspan"):
        return True
    if tag == "ol" and name == "start":
        return value.isdigit()
    if name == "class" and tag in ("span", "div", "code", "pre"):
        return True
    return False


# Every attribute _attribute may keep, per tag ("*": any tag); nh3 asks _attribute about each one it finds.
CANDIDATE_ATTRIBUTES = {"*": {"title", "alt"}, "a": {"href"}, "img": {"src"}, "td": {"align", "colspan", "rowspan"},
                        "th": {"align", "colspan", "rowspan"}, "ol": {"start"}, "span": {"class"}, "div": {"class"},
                        "code": {"class"}, "pre": {"class"}}


def _keep(tag: str, name: str, value: str) -> str | None:
    """nh3's attribute filter: the value when _attribute admits it, None to drop the attribute."""
    return value if _attribute(tag, name, value) else None


def sanitize(html: str) -> str:
    """HTML rendered from a student's Markdown, with everything but the allow-list removed.

    A tag off the list is dropped and its text kept; script and style go with their content.
    """
    import nh3

    return nh3.clean(html, tags=ALLOWED_TAGS, clean_content_tags={"script", "style"},
                     attributes=CANDIDATE_ATTRIBUTES, attribute_filter=_keep,
                     url_schemes={"http", "https", "mailto", "data"}, strip_comments=True, link_rel=None)


def rendered(text: str | None, attachments: dict[str, dict[str, str]] | None = None) -> str:
    """A Markdown cell as nbconvert renders it (what Jupyter, the formgrader and nbconvert show), unsanitised;
    raises when nbconvert cannot render it."""
    from nbconvert.filters.markdown_mistune import IPythonRenderer, InvalidNotebook, MarkdownWithMath

    def render(source: str) -> str:
        renderer = IPythonRenderer(escape=False, attachments=attachments or {}, exclude_anchor_links=True)
        return MarkdownWithMath(renderer=renderer).render(source)

    try:
        return render(text or "")
    except InvalidNotebook:  # an attachment the cell names but does not carry: the image is dropped
        return render(re.sub(r"attachment:[^)\s]*", "#missing-attachment", text or ""))


def markdown_html(text: str | None, attachments: dict[str, dict[str, str]] | None = None) -> Markup:
    """A Markdown cell as safe HTML (nbconvert's renderer, then ``sanitize``); math kept for MathJax."""
    from markupsafe import Markup

    try:
        html = rendered(text, attachments)
    except Exception:  # noqa: BLE001 - whatever the Markdown, the page is still written
        from markupsafe import escape

        return Markup(f"<pre>{escape(text or '')}</pre>")
    return Markup(sanitize(html))


# MathJax (the formgrader's and Jupyter's) commands that link, style or load: \href{javascript:...} runs script
# on a click, \style/\class/\cssId restyle the page around the answer.
MATHJAX_ACTIVE = re.compile(r"\\(href|unicode|class|style|cssId|require|data|html)\b")


def _markup(html: str) -> list[tuple[str, tuple[tuple[str, str], ...]]]:
    """Every start tag of ``html`` with its attributes, as a browser's parser reads them."""
    from html.parser import HTMLParser

    found: list[tuple[str, tuple[tuple[str, str], ...]]] = []

    class Tags(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            found.append((tag, tuple(sorted((k, v or "") for k, v in attrs))))

    parser = Tags(convert_charrefs=True)
    parser.feed(html)
    parser.close()
    return sorted(found)


def unsafe_markup(text: str | None, attachments: dict[str, dict[str, str]] | None = None) -> str | None:
    """Why a Markdown cell is not safe to show as rendered (None when it is): what nbconvert renders of it holds a
    tag or attribute the allow-list removes (a script, an event handler, a javascript: link, an iframe, a form),
    or MathJax commands that link or style. The same allow-list as the written answers' pages (``sanitize``)."""
    if MATHJAX_ACTIVE.search(text or ""):
        return "MathJax commands that link or style"
    try:
        html = rendered(text, attachments)
    except Exception:  # noqa: BLE001 - what nbconvert cannot render here is not shown rendered
        return "Markdown that nbconvert cannot render"
    if "<!" in html or "<?" in html:  # only raw HTML renders these: math, code and text escape "<"
        # Comments, CDATA and declarations end where Python's parser and a browser disagree: a <script> inside
        # `<!-- --!>` or `<![CDATA[ >` is a comment to html.parser and an element to Chromium and to nh3's parser
        # (red team of issue 23, second round): such a cell was kept as written and its script ran.
        return "HTML comments or declarations"
    if not set(_markup(html)) <= set(_markup(sanitize(html))):  # a tag or attribute the allow-list removes
        return "HTML outside the allow-list"
    return None


def code_html(code: str | None) -> Markup:
    from markupsafe import Markup
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer

    return Markup(highlight(code or "", PythonLexer(), HtmlFormatter(cssclass="highlight")))


def _css() -> Markup:
    from markupsafe import Markup
    from pygments.formatters import HtmlFormatter

    # Our own file, inside <style>: marked safe so that autoescaping leaves its quotes alone.
    return Markup((HERE / "templates" / "style.css").read_text() + HtmlFormatter().get_style_defs(".highlight"))


def anchor(student: str) -> str:
    return "s-" + re.sub(r"[^A-Za-z0-9_-]", "_", student) + "-" + hashlib.sha256(student.encode()).hexdigest()[:6]


def file_stem(student: str) -> str:
    """A file name for a student id: the id itself when it is plain, else a slug and a short hash."""
    if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._~-]{0,80}", student):
        return student
    return re.sub(r"[^A-Za-z0-9._-]", "_", student)[:60] + "-" + hashlib.sha256(student.encode()).hexdigest()[:8]


# ---- pages ----------------------------------------------------------------------------------------

class Pages:
    """Renders the three kinds of page with one Jinja environment."""

    def __init__(self, questions: Sequence[Question], assignment: str = NAME, mathjax: bool = True) -> None:
        from jinja2 import Environment, FileSystemLoader, StrictUndefined

        self.questions, self.assignment = questions, assignment
        self.env = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=True,
                               undefined=StrictUndefined, trim_blocks=False)
        self.env.filters.update(markdown=markdown_html, code=code_html, anchor=anchor,
                                points=lambda p: f"{p:g}",
                                answer_html=lambda a: markdown_html(a.text, a.attachments))
        self.mathjax = (MATHJAX_DIR / "MathJax.js") if mathjax and (MATHJAX_DIR / "MathJax.js").is_file() else None
        self.css = _css()

    def _render(self, template: str, title: str, body_class: str = "", **context: Any) -> str:
        mathjax = self.mathjax
        return self.env.get_template(template).render(
            title=title, css=self.css, body_class=body_class, questions=self.questions, assignment=self.assignment,
            mathjax=f"{mathjax.as_uri()}?config={MATHJAX_CONFIG}" if mathjax else None,
            mathjax_config=(HERE / "mathjax_config.js").as_uri(),
            script_src="file:" if mathjax else "'none'", **context)

    def student(self, written: Written) -> str:
        return self._render("student.html.j2", f"{written.student}: written answers", w=written)

    def question(self, q: Question, entries: Iterable[tuple[Written, str]]) -> str:
        """``entries``: [(Written, pdf link or "")] of every student."""
        rows = [(w, w.answers[q.key], pdf) for w, pdf in entries]
        answered = sum(1 for w, a, _ in rows if w.status == "read" and not a.blank)
        return self._render("question.html.j2", f"Q{q.number} ({q.title}): every answer", body_class="wide",
                            q=q, entries=rows, answered=answered)

    def index(self, entries: Sequence[tuple[Written, str]]) -> str:
        return self._render("index.html.j2", f"{self.assignment}: written answers", body_class="wide",
                            students=entries)


# ---- PDF ------------------------------------------------------------------------------------------

def chromium() -> str | None:
    """The Chromium executable, or None."""
    override = os.environ.get("WRITTEN_CHROMIUM")
    if override:
        return override if shutil.which(override) else None
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


def print_pdf(html_path: str | os.PathLike[str], pdf_path: str | os.PathLike[str], browser: str | None = None,
              timeout: float = PDF_SECONDS) -> Path:
    """Print the HTML file to ``pdf_path`` with headless Chromium, offline; raise PdfError on failure."""
    browser = browser or chromium()
    if not browser:
        raise PdfError(f"no Chromium found for PDFs; {INSTALL_HINT}")
    html_path, pdf_path = Path(html_path).resolve(), Path(pdf_path).resolve()
    tmp = pdf_path.with_name(f".{pdf_path.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory(prefix="written-chromium-") as profile:
        argv = [browser, "--headless", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
                "--disable-extensions", "--disable-sync", "--disable-background-networking",
                "--disable-component-update", "--disable-default-apps", "--mute-audio", "--hide-scrollbars",
                f"--user-data-dir={profile}", "--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
                "--host-resolver-rules=MAP * ~NOTFOUND", "--no-pdf-header-footer", "--virtual-time-budget=20000",
                "--run-all-compositor-stages-before-draw", f"--print-to-pdf={tmp}", html_path.as_uri()]
        if os.geteuid() == 0 or os.environ.get("WRITTEN_CHROMIUM_NO_SANDBOX"):
            argv.insert(1, "--no-sandbox")  # Chromium refuses to start as root with its sandbox
        env = dict(os.environ, HOME=profile, XDG_CONFIG_HOME=profile, XDG_CACHE_HOME=profile)
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=env, start_new_session=True)
        try:
            _, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # Chromium's own process group (new session), nothing else
            proc.communicate()
            tmp.unlink(missing_ok=True)
            raise PdfError(f"Chromium did not finish {html_path.name} within {timeout} s") from None
        finally:
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # helpers left behind by the browser, if any
            except (ProcessLookupError, PermissionError):
                pass
    try:
        ok = tmp.read_bytes()[:5] == b"%PDF-"
    except OSError:
        ok = False
    if proc.returncode != 0 or not ok:
        tmp.unlink(missing_ok=True)
        tail = err.decode("utf-8", "replace").strip().splitlines()[-5:]
        raise PdfError(f"Chromium failed on {html_path.name} (exit {proc.returncode}): " + " | ".join(tail))
    os.replace(tmp, pdf_path)
    return pdf_path
