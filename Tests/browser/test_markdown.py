"""The Markdown renderer of the console (web/js/markdown.js), run in the browser on its own:
what each construct becomes, and that nothing a description holds becomes markup or a link
other than http(s)."""

import pytest

from browser_support import sign_in_with_token  # noqa: F401  (the module shares the fixtures)

RENDER = """async (source) => {
  const { renderMarkdown } = await import('/app/js/markdown.js');
  const root = renderMarkdown(source);
  const walk = (node) => node.nodeType === Node.TEXT_NODE ? node.textContent
    : [node.localName, Object.fromEntries(Array.from(node.attributes).map(a => [a.name, a.value])),
       ...Array.from(node.childNodes).map(walk)];
  return Array.from(root.childNodes).map(walk);
}"""


@pytest.fixture
def render(relaydeck, page):
    page.goto(relaydeck.app_url)
    page.get_by_role("heading", name="Sign in to Relaydeck").wait_for()
    return lambda source: page.evaluate(RENDER, source)


@pytest.mark.parametrize("source, expected", [
    ("Hello *you* and **them**", [["p", {}, "Hello ", ["em", {}, "you"], " and ", ["strong", {}, "them"]]]),
    ("# Title\n## Sub", [["h3", {}, "Title"], ["h4", {}, "Sub"]]),
    ("- a\n- b *c*", [["ul", {}, ["li", {}, "a"], ["li", {}, "b ", ["em", {}, "c"]]]]),
    ("3. three\n4. four", [["ol", {"start": "3"}, ["li", {}, "three"], ["li", {}, "four"]]]),
    ("```js\nlet x = '<b>';\n```", [["pre", {}, ["code", {"data-language": "js"}, "let x = '<b>';"]]]),
    ("use `a < b` here", [["p", {}, "use ", ["code", {}, "a < b"], " here"]]),
    ("> quoted", [["blockquote", {}, ["p", {}, "quoted"]]]),
    ("snake_case_name", [["p", {}, "snake_case_name"]]),
    ("\\*not em\\*", [["p", {}, "*not em*"]]),
    ("line one\nline two", [["p", {}, "line one", " ", "line two"]]),
    ("[site](https://example.com/a?b=1)", [["p", {}, ["a", {"href": "https://example.com/a?b=1", "rel": "noopener noreferrer", "target": "_blank"}, "site"]]]),
    ("<http://example.com>", [["p", {}, ["a", {"href": "http://example.com/", "rel": "noopener noreferrer", "target": "_blank"}, "http://example.com"]]]),
])
def test_each_construct_becomes_its_element(render, source, expected):
    assert render(source) == expected


@pytest.mark.parametrize("source", [
    "[x](javascript:alert(1))",
    "[x](JaVaScRiPt:alert(1))",
    "[x](data:text/html;base64,PHNjcmlwdD4=)",
    "[x](vbscript:msgbox)",
    "[x](/relative/path)",
    "[x](//evil.example/)",
    "[x](file:///etc/passwd)",
])
def test_a_link_that_is_not_http_stays_text(render, source):
    rendered = render(source)

    def text(node):
        return node if isinstance(node, str) else "".join(text(child) for child in node[2:])

    def tags(node):
        return [] if isinstance(node, str) else [node[0], *[t for child in node[2:] for t in tags(child)]]

    assert "".join(text(node) for node in rendered) == source
    assert "a" not in [t for node in rendered for t in tags(node)]


def test_html_in_markdown_stays_text(render):
    source = '<div onclick="x()">hi</div>\n\n<script>window.__pwned=1</script>'
    assert render(source) == [["p", {}, '<div onclick="x()">hi</div>'], ["p", {}, "<script>window.__pwned=1</script>"]]

