"""Asks about a repository's off-endpoint model choices, one modal (``app/screens/repo_model.py``) each, then acts.

They are asked once the runtime is on screen. Until the user answers, navtui runs on the user's own model; an
answer is remembered per repository (``config/repo_approvals.py``).
"""

from __future__ import annotations

from typing import Any


def ask_repository_models(screen: Any) -> None:
    runtime = screen.runtime
    held = list(getattr(runtime, "held_models", []) or [])
    if held:
        screen.run_worker(_ask_all(screen, held), group="repo-models", exclusive=True)


async def _ask_all(screen: Any, held: list[Any]) -> None:
    from navtui.app.screens.repo_model import RepoModelScreen
    from navtui.config.repo_approvals import RepoApprovals
    from navtui.core.errors import NavtuiError

    runtime = screen.runtime
    for choice in held:
        answer = await screen.app.push_screen_wait(RepoModelScreen(choice))
        if answer in ("allow", "deny") and runtime.repository is not None:
            RepoApprovals().remember(runtime.repository, choice, answer)
        runtime.held_models.remove(choice)
        if answer != "allow":
            screen.notice(f"Keeping your model; {choice.value} from this repository is not used.")
            continue
        if choice.path == "model":
            try:
                await runtime.switch_model(choice.value, choice.endpoint[0])
            except NavtuiError as exc:
                screen.notice(f"Could not switch to {choice.value}: {exc}", level="error")
                continue
            screen.show_status(runtime.status(with_git=False))
        else:
            runtime.settings.model_roles[choice.path.split(".", 1)[1]] = choice.value
        screen.notice(f"Using {choice.value} ({choice.endpoint[0]}) for this repository, as you allowed.")
