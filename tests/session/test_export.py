"""Export: a self-contained, escaped, highlighted HTML page and a Markdown transcript of the leaf's path."""

from __future__ import annotations

import base64
import re
from pathlib import Path

from navtui.core.messages import AssistantMessage, ImageBlock, TextBlock, ThinkingBlock, ToolResultMessage, UserMessage
from navtui.session.export import export_html, export_markdown, render_html
from navtui.session.manager import SessionManager
from tests.session.helpers import call, user

CODE = 'Here is the fix:\n\n```python\ndef greet():\n    return "<hi>"\n```\n\n[click](javascript:alert(1))'


def _session(session: SessionManager) -> SessionManager:
    prompt = session.append_message(UserMessage(content="Fix <script>alert('x')</script> in app.py"))
    session.append_message(
        AssistantMessage(
            content=[
                ThinkingBlock(thinking="look at <b>app.py</b>"),
                TextBlock(text=CODE),
                call("c1", "edit", path="app.py", old_text="</details><script>"),
            ],
            provider="ollama",
            model="qwen3-coder",
            stop_reason="tool_use",
        )
    )
    session.append_message(
        ToolResultMessage(
            tool_call_id="c1",
            tool_name="edit",
            content=[TextBlock(text="edited </pre><img src=x onerror=alert(1)>")],
            details={"diff": "--- a/app.py\n+++ b/app.py\n-old\n+new\n"},
        )
    )
    session.append_compaction("Summary with **bold**", prompt, 12345)
    session.append_custom_message("handover", "Next: run the tests")
    session.append_label(prompt, "start <here>")
    session.set_name("Fix the greeting")
    return session


def test_html_is_self_contained_escaped_and_collapsible(session: SessionManager, tmp_path: Path) -> None:
    page = export_html(_session(session), tmp_path / "out.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "<title>Fix the greeting</title>" in page
    assert "<script" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in page
    assert 'href="javascript' not in page
    assert not re.search(r"<(link|script)[^>]*(src|href)=", page)  # nothing loaded from elsewhere
    assert '<details class="tool">' in page and "<strong>edit</strong>" in page
    assert '<details class="thinking">' in page and "look at &lt;b&gt;app.py&lt;/b&gt;" in page
    assert '<pre class="highlight"><code><span class="k">def</span>' in page  # Pygments on the fence
    assert '<span class="gd">-old</span>' in page  # the edit's diff, highlighted
    assert "edited &lt;/pre&gt;&lt;img src=x" in page
    assert "Context compacted (12,345 tokens before)" in page and "<strong>bold</strong>" in page
    assert "Handover" in page and "Next: run the tests" in page
    assert '<span class="label">start &lt;here&gt;</span>' in page
    assert "ollama/qwen3-coder" in page
    assert page.count('<pre class="highlight"><pre') == 0


def test_html_themes_and_inline_images(session: SessionManager, navtui_home: Path) -> None:
    data = base64.b64encode(b"\x89PNG" + bytes(3000)).decode()
    session.append_message(UserMessage(content=[TextBlock(text="see"), ImageBlock(data=data, mime_type="image/png")]))
    reopened = SessionManager.open(session.path)  # the image now comes back from the blob store
    dark = render_html(reopened)
    light = render_html(reopened, theme="light")
    assert f'src="data:image/png;base64,{data}"' in dark
    assert "--bg:#16181d" in dark and "--bg:#ffffff" in light


def test_markdown_export(session: SessionManager, tmp_path: Path) -> None:
    text = export_markdown(_session(session), tmp_path / "out.md").read_text()
    assert text.startswith("# Fix the greeting\n")
    assert "## User [start &lt;here>]" in text and "## Assistant (qwen3-coder)" in text
    assert '```json\n{\n  "path": "app.py"' in text
    assert "**Result**\n\n```\nedited </pre>" in text
    assert "_Context compacted (12,345 tokens before):_" in text and "_Handover notes:_" in text
    assert "> look at &lt;b>app.py&lt;/b>" in text


def test_markdown_export_escapes_raw_html_but_not_code(session: SessionManager, tmp_path: Path) -> None:
    text = export_markdown(_session(session), tmp_path / "out.md").read_text()
    # What a model or a user wrote cannot become live HTML in a Markdown previewer ...
    assert "Fix &lt;script>alert('x')&lt;/script> in app.py" in text
    from markdown_it import MarkdownIt

    previewed = MarkdownIt("commonmark").render(text)  # a previewer that renders raw HTML, as code hosts do
    for tag in ("<script", "<img", "<b>", "<here>", "</details>"):
        assert tag not in previewed, tag
    # ... while code blocks and inline code keep their text exactly.
    assert '```python\ndef greet():\n    return "<hi>"\n```' in text
    assert "edited </pre><img src=x onerror=alert(1)>" in text  # inside the result's fence


def test_markdown_escaping_follows_code_spans_and_fences() -> None:
    from navtui.session.markdown_safe import safe_markdown

    assert safe_markdown("a <b> `c<d>` ``e`<f>`` g") == "a &lt;b> `c<d>` ``e`<f>`` g"
    assert safe_markdown("`open <i>\n\nnext <b>`") == "`open &lt;i>\n\nnext &lt;b>`"  # spans stop at a blank line
    assert safe_markdown("- item\n\n  ```\n  <x>\n  ```\n> <q>") == "- item\n\n  ```\n  <x>\n  ```\n> &lt;q>"
    assert safe_markdown("    <indented code>") == "    <indented code>"
    assert safe_markdown("no tags at all") == "no tags at all"


def test_markdown_links_that_run_script_point_nowhere() -> None:
    from navtui.session.markdown_safe import safe_markdown

    assert safe_markdown("[x](javascript:alert(1))") == "[x](#unsafe-link:javascript:alert(1))"
    assert safe_markdown("[x]( <JavaScript:go>)") == "[x]( &lt;#unsafe-link:JavaScript:go>)"
    assert safe_markdown("[r]: vbscript:run\n\n[r]") == "[r]: #unsafe-link:vbscript:run\n\n[r]"
    assert safe_markdown("[e](&#106;avascript:x)") == "[e](&amp;#106;avascript:x)"  # no entity spells a scheme
    assert safe_markdown("`[x](javascript:y)`") == "`[x](javascript:y)`"  # code is left as written
    assert safe_markdown("[ok](https://example.com) data: values") == "[ok](https://example.com) data: values"


def test_exports_show_escapes_and_any_byte_as_text(session: SessionManager, tmp_path: Path) -> None:
    hostile = "clip\x1b]52;c;aGk=\x1b\\ csi\x9b2J raw\udc9bbyte lone\ud800 nul\x00"
    session.append_message(user(hostile))
    session.append_message(AssistantMessage(content=[TextBlock(text=hostile)], provider="ollama", model="m"))
    markdown = export_markdown(session, tmp_path / "s.md").read_bytes().decode("utf-8")  # valid UTF-8
    page = export_html(session, tmp_path / "s.html").read_bytes().decode("utf-8")
    for text in (markdown, page):
        assert "clip␛]52;c;aGk=␛\\ csi\\x9b2J raw\\x9bbyte lone\\ud800 nul␀" in text
        assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", text.replace("\r\n", "\n"))


def test_markdown_fences_outgrow_backticks_in_the_content(session: SessionManager, tmp_path: Path) -> None:
    session.append_message(user("q"))
    session.append_message(AssistantMessage(content=[call("c1", "read")]))
    session.append_message(ToolResultMessage.of(call("c1"), "a ```` fence inside"))
    text = export_markdown(session, tmp_path / "o.md").read_text()
    assert "`````\na ```` fence inside\n`````" in text


def test_export_of_an_earlier_leaf_shows_only_its_path(session: SessionManager) -> None:
    first = session.append_message(user("first question"))
    session.append_message(user("second question"))
    page = render_html(session, leaf_id=first)
    assert "first question" in page and "second question" not in page


def test_a_name_read_from_another_tool_with_a_newline_is_one_title_line(session: SessionManager, tmp_path: Path) -> None:
    session.append_message(user("hello"))
    session.append_session_info("Fix\nthe parser")  # as a pi file may hold it (navtui's own names are one line)
    text = export_markdown(session, tmp_path / "out.md").read_text()
    assert text.startswith("# Fix the parser\n\n- Session: `")
    html = export_html(session, tmp_path / "out.html").read_text()
    assert "<title>Fix the parser</title>" in html
