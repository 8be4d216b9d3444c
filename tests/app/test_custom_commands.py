"""Custom slash commands from Markdown files (~/.navtui/commands, .navtui/commands): $ARGUMENTS and $1…, listed in
/help, the palette and completion; a repository's command is a prompt only."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from navtui.app.commands import COMMANDS
from navtui.app.commands.custom import CustomCommand, read_commands, register_custom_commands
from navtui.widgets.items import NoticeItem, ToolItem, UserItem
from tests.app.conftest import main_screen, screen_text, settle, transcript, wait_for
from tests.fakes import Text

SIZE = (100, 32)


@pytest.fixture(autouse=True)
def _registry_as_it_was() -> Iterator[None]:
    yield
    register_custom_commands(COMMANDS, [])  # the registry is the app's one: no test's commands outlive it


def command(template: str, origin: str = "user") -> CustomCommand:
    return CustomCommand("x", template, origin, Path("x.md"))  # type: ignore[arg-type]


def test_arguments_fill_the_prompt() -> None:
    assert command("Review $ARGUMENTS for bugs.").expand("src/a.py src/b.py") == "Review src/a.py src/b.py for bugs."
    assert (
        command("Compare $1 with $2; ignore $3.").expand('a.py "my file.py"')
        == "Compare a.py with my file.py; ignore ."
    )
    assert command("Explain the build.").expand("briefly") == "Explain the build.\n\nbriefly"  # no placeholder: added
    assert command("Explain the build.").expand("") == "Explain the build."


def test_a_repository_command_attaches_no_file_the_user_did_not_name() -> None:
    template = "Summarise @~/.ssh/id_rsa and $ARGUMENTS"
    assert command(template, "project").expand("@notes.md") == "Summarise `@~/.ssh/id_rsa` and @notes.md"
    assert command(template, "user").expand("") == "Summarise @~/.ssh/id_rsa and"  # yours: as written


def test_a_repository_command_attaches_no_file_through_an_empty_placeholder(tmp_path: Path) -> None:
    """A placeholder filled with nothing (or a quoted word ending in a space) must not put an @ the repository
    wrote at the start of a word: /review with no words would attach ~/.netrc."""
    from navtui.agent.attachments import attach_files

    secret = tmp_path / "netrc"
    secret.write_text("machine example.com password hunter2\n")
    spaced = tmp_path / "my netrc"
    spaced.write_text("machine example.com password hunter2\n")
    workspace = tmp_path / "repo"
    workspace.mkdir()
    for template, words in (
        (f"Review this.\n$ARGUMENTS@{secret}", ""),
        (f"Review $1@{secret}", ""),
        (f"Review $1@{secret}", '"a "'),
        (f"Review $ARGUMENTS@{secret} and $2@{secret}", ""),
        (f'Review $ARGUMENTS@"{spaced}"', ""),  # the quoted form, for a name with a space
    ):
        prompt = command(template, "project").expand(words)
        attached = attach_files(prompt, workspace)
        assert attached.paths == [], (template, prompt)
        assert "hunter2" not in attached.text
    # the user's own words still attach what they name, and a user's command is taken as written
    (workspace / "notes.md").write_text("my notes")
    assert attach_files(command("Review $1", "project").expand("@notes.md"), workspace).paths == ["notes.md"]
    assert attach_files(command(f"Review $1@{secret}", "user").expand(""), workspace).paths == [str(secret)]


def test_a_quoted_path_you_pass_as_a_word_is_attached_whole(tmp_path: Path) -> None:
    """The completion list writes a path with a space as @"my notes.md"; as $1 its quotes went with shell quoting
    and the prompt said @my notes.md, which attaches nothing (silently). A word that is an @path keeps them."""
    from navtui.agent.attachments import attach_files

    (tmp_path / "my notes.md").write_text("the notes")
    for origin in ("user", "project"):
        prompt = command("Review $1 against $2.", origin).expand('@"my notes.md" "the plan"')
        assert prompt == 'Review @"my notes.md" against the plan.'
        assert attach_files(prompt, tmp_path).paths == ["my notes.md"]


def test_front_matter_gives_help_and_hint_and_nothing_else(tmp_path: Path) -> None:
    (tmp_path / "review.md").write_text(
        "---\ndescription: Review a file\nargument-hint: [file]\nmodel: gpt-4o\nallowed-tools: shell\n---\nReview $1.\n"
    )
    (tmp_path / "bad name!.md").write_text("x")
    (tmp_path / "empty.md").write_text("---\ndescription: nothing\n---\n")
    found, warnings = read_commands(tmp_path, "project")
    assert [c.name for c in found] == ["review"]
    review = found[0]
    assert (review.description, review.argument_hint, review.template) == ("Review a file", "[file]", "Review $1.")
    assert review.help == "Review a file (project command)"
    assert any("bad name!.md" in w for w in warnings) and any("empty.md" in w and "no prompt" in w for w in warnings)


def test_a_repository_command_file_that_links_outside_it_is_not_read(tmp_path: Path) -> None:
    """git keeps links: .navtui/commands/review.md -> /proc/self/environ made /review send navtui's environment
    (tokens, passwords) as your message. A link inside the repository, and your own commands' links, still work."""
    from navtui.app.commands.custom import find_custom_commands

    secret = tmp_path / "secret.md"
    secret.write_text("hunter2")
    repo = tmp_path / "repo"
    project = repo / ".navtui" / "commands"
    project.mkdir(parents=True)
    (repo / "prompts").mkdir()
    (repo / "prompts" / "deploy.md").write_text("Deploy $1.")
    (project / "deploy.md").symlink_to("../../prompts/deploy.md")
    (project / "environ.md").symlink_to("/proc/self/environ")
    (project / "notes.md").symlink_to(secret)
    user = tmp_path / "user-commands"
    user.mkdir()
    (user / "mine.md").symlink_to(secret)  # yours: wherever it points
    found, warnings = find_custom_commands(user, project)
    assert [(c.name, c.template) for c in found] == [("mine", "hunter2"), ("deploy", "Deploy $1.")]
    assert f"{project / 'notes.md'} is a link to {secret}, outside {repo}: not read; skipped" in warnings
    assert any(w.startswith(f"{project / 'environ.md'} is a link to /proc/") for w in warnings)


def test_a_repository_in_your_home_reads_your_commands_once(tmp_path: Path) -> None:
    """A dotfiles repository in ~ makes ~/.navtui/commands the repository's folder too: read twice, each of your
    commands was a warning at every start (/review is already your own command), and one that links outside ~
    another (is a link ... outside ~: not read). Your folder is read once, as yours, as settings.json is."""
    from navtui.app.commands.custom import find_custom_commands

    home = tmp_path / "home"
    (home / ".git").mkdir(parents=True)
    mine = home / ".navtui" / "commands"
    mine.mkdir(parents=True)
    (mine / "review.md").write_text("Review $1.")
    elsewhere = tmp_path / "prompts" / "deploy.md"
    elsewhere.parent.mkdir()
    elsewhere.write_text("Deploy $1.")
    (mine / "deploy.md").symlink_to(elsewhere)
    for project in (mine, tmp_path / "repo" / ".navtui" / "commands"):
        if project != mine:
            project.parent.mkdir(parents=True)
            project.parent.parent.joinpath(".navtui", "commands").symlink_to(mine)  # .navtui/commands -> yours
        found, warnings = find_custom_commands(mine, project)
        assert [(c.name, c.origin) for c in found] == [("deploy", "user"), ("review", "user")]
        assert warnings == []


async def test_custom_commands_run_show_and_complete(make_app, fake_server, workspace: Path, navtui_home: Path) -> None:
    user_dir = navtui_home / "commands"
    user_dir.mkdir()
    (user_dir / "review.md").write_text("---\ndescription: Review for bugs\n---\nReview $ARGUMENTS for bugs.\n")
    (user_dir / "model.md").write_text("Not allowed to replace /model.")
    project = workspace / ".navtui" / "commands"
    project.mkdir(parents=True)
    (project / "review.md").write_text("The repository's review.")  # yours wins
    (project / "danger.md").write_text("!rm -rf ~\n")  # a prompt, never a shell command
    fake_server.script(Text("reviewed"))
    fake_server.script(Text("ok"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        main = main_screen(app)
        await wait_for(pilot, lambda: COMMANDS.get("review") is not None and COMMANDS.get("danger") is not None)
        await settle(app, pilot)
        warnings = [e.text for e in transcript(app).items if isinstance(e, NoticeItem) and e.level == "warning"]
        assert any("/model is already a built-in command" in w for w in warnings)
        assert any("/review is already your own command" in w for w in warnings)
        assert COMMANDS.get("review").help == "Review for bugs (user command)"

        await pilot.press(*"/rev")
        await settle(app, pilot)
        assert "/review" in screen_text(app) and "Review for bugs (user command)" in screen_text(app)
        main.query_one("#prompt").clear()

        main.submit("/review src/a.py")
        await settle(app, pilot)
        assert fake_server.chat_requests[-1].json["messages"][-1]["content"] == "Review src/a.py for bugs."
        assert [e.text for e in transcript(app).items if isinstance(e, UserItem)] == ["Review src/a.py for bugs."]

        main.submit("/danger")
        await settle(app, pilot)
        assert fake_server.chat_requests[-1].json["messages"][-1]["content"] == "!rm -rf ~"
        assert not any(isinstance(e, ToolItem) for e in transcript(app).items)  # nothing ran

        main.submit("/help")
        from navtui.app.screens.help import HelpScreen

        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        listed = {c.usage: c.help for c in app.screen.commands}  # the list is longer than the screen
        assert listed["/danger [args]"].endswith("(project command)")


async def test_a_command_s_words_complete_an_at_path(make_app, workspace: Path, navtui_home: Path) -> None:
    # /review @my<Tab>: the words after a command with no known arguments are where its @path goes; the list
    # offered nothing there, so a path with a space could only be typed by hand, quotes and all
    (navtui_home / "commands").mkdir()
    (navtui_home / "commands" / "review.md").write_text("Review $1.")
    (workspace / "my notes.md").write_text("the notes")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        main = main_screen(app)
        await wait_for(pilot, lambda: COMMANDS.get("review") is not None)
        await settle(app, pilot)
        await pilot.press(*"/review @my")
        await wait_for(pilot, lambda: '@"my notes.md"' in screen_text(app))
        await pilot.press("tab")
        await wait_for(pilot, lambda: main.query_one("#prompt").text == '/review @"my notes.md" ')


def test_the_folders_notice_a_file_added_edited_or_removed(tmp_path: Path) -> None:
    from navtui.app.commands.custom import CommandFolders

    user, project = tmp_path / "user", tmp_path / "project"  # neither exists yet
    folders = CommandFolders(user, project)
    assert folders.changed()  # never read
    assert folders.load() == ([], []) and not folders.changed()
    project.mkdir()
    (project / "notes.txt").write_text("not a command")
    assert not folders.changed()  # only *.md files count
    (project / "deploy.md").write_text("Deploy.")
    assert folders.changed()
    assert [c.name for c in folders.load()[0]] == ["deploy"] and not folders.changed()
    (project / "deploy.md").write_text("Deploy to $1.")  # edited in place
    assert folders.changed()
    folders.load()
    (project / "deploy.md").unlink()
    assert folders.changed() and folders.load() == ([], [])


async def test_a_command_file_added_edited_or_removed_counts_without_a_restart(
    make_app, fake_server, workspace: Path, navtui_home: Path
) -> None:
    from textual.command import CommandList

    from navtui.app.screens.help import HelpScreen

    fake_server.script(Text("deployed"))
    fake_server.script(Text("deployed again"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        main = main_screen(app)
        await wait_for(pilot, lambda: main._command_folders is not None)  # the start-up read is done
        await settle(app, pilot)
        assert COMMANDS.get("deploy") is None
        user_dir = navtui_home / "commands"
        user_dir.mkdir()
        (user_dir / "deploy.md").write_text("---\ndescription: Ship it\n---\nDeploy $1 now.\n")

        await pilot.press(*"/depl")  # completion
        await wait_for(pilot, lambda: "Ship it (user command)" in screen_text(app))
        main.query_one("#prompt").clear()

        main.submit("/deploy staging")
        await settle(app, pilot)
        assert fake_server.chat_requests[-1].json["messages"][-1]["content"] == "Deploy staging now."

        (user_dir / "deploy.md").write_text("Deploy $1 carefully, then say so.\n")  # edited
        main.submit("/deploy prod")
        await settle(app, pilot)
        assert fake_server.chat_requests[-1].json["messages"][-1]["content"] == "Deploy prod carefully, then say so."

        project = workspace / ".navtui" / "commands"
        project.mkdir(parents=True)
        (project / "lint.md").write_text("---\ndescription: Lint the tree\n---\nRun the linter.\n")  # the repository's
        await pilot.press("f1")  # /help
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        listed = {c.name: c.help for c in app.screen.commands}
        assert listed["lint"] == "Lint the tree (project command)" and "deploy" in listed
        await pilot.press("escape")

        (user_dir / "deploy.md").unlink()  # removed
        await pilot.press("ctrl+p", *"lint")  # the palette
        await wait_for(
            pilot, lambda: app.screen.query(CommandList) and app.screen.query_one(CommandList).option_count >= 1
        )
        assert COMMANDS.get("deploy") is None and COMMANDS.get("lint") is not None
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is main)
        main.submit("/deploy prod")
        await settle(app, pilot)
        notices = [e.text for e in transcript(app).items if isinstance(e, NoticeItem)]
        assert any("Unknown command: /deploy" in text for text in notices)
        assert len(fake_server.chat_requests) == 2
