"""The "Request it" modal a proposal button opens: one empty field per catalogue parameter
(a menu where the catalogue lists the allowed values), checked on submit with the catalogue's
own rules, errors shown beside the field. Nothing is filled in from the answer or any retrieved
text: the person chooses every value, as with `/incident run`."""

from __future__ import annotations

import json
from typing import Any

from bot.answer import render
from bot.guarded.catalogue import Action, IntegerParam, StringParam

CALLBACK_ID = "guarded_run_modal"
_BLOCK = "param_"
_MAX_OPTIONS = 100  # Slack's limit for a static_select
_MAX_OPTION_VALUE = 150  # Slack's limit for an option's value: longer values are typed


def run_modal(action: Action, *, channel_id: str, thread_ts: str | None, source: str) -> dict:
    """The modal for requesting `action` in `channel_id` (the thread the proposal was in)."""
    blocks: list[dict[str, Any]] = [
        render.section(
            f"*{render.escape(action.title)}* (`{action.name}`, risk {action.risk}): "
            f"{render.escape(action.description)}\n"
            f"Proposed by {render.escape(source[:200])}. It runs only after "
            f"{action.approvals_required} approval(s)"
            f"{' (a dry run: it shows what would run)' if action.dry_run else ''}."
        )
    ]
    blocks += [_field(name, spec) for name, spec in action.parameters.items()]
    meta = {"action": action.name, "channel_id": channel_id, "thread_ts": thread_ts}
    return {
        "type": "modal",
        "callback_id": CALLBACK_ID,
        "title": {"type": "plain_text", "text": "Request an action"},
        "submit": {"type": "plain_text", "text": "Request"},
        "close": {"type": "plain_text", "text": "Cancel"},
        "private_metadata": json.dumps(meta),
        "blocks": blocks,
    }


def _field(name: str, spec: StringParam | IntegerParam) -> dict[str, Any]:
    label = {"type": "plain_text", "text": name[:2000]}
    element: dict[str, Any]
    if (
        isinstance(spec, StringParam)
        and spec.allowed
        and len(spec.allowed) <= _MAX_OPTIONS
        and all(len(v) <= _MAX_OPTION_VALUE for v in spec.allowed)
    ):
        element = {
            "type": "static_select",
            "action_id": "value",
            "options": [
                {"text": {"type": "plain_text", "text": render.clip(v, 75)}, "value": v}
                for v in spec.allowed
            ],
        }
    else:
        element = {"type": "plain_text_input", "action_id": "value"}
    block: dict[str, Any] = {
        "type": "input",
        "block_id": f"{_BLOCK}{name}",
        "label": label,
        "element": element,
    }
    hint = spec.description or spec.hint()
    if hint:
        block["hint"] = {"type": "plain_text", "text": hint[:2000]}
    return block


def submitted(view: dict[str, Any], action: Action) -> tuple[dict[str, str], dict[str, str]]:
    """(values, errors by block id) of a submitted modal, each value checked by the catalogue."""
    state = (view.get("state") or {}).get("values") or {}
    values: dict[str, str] = {}
    errors: dict[str, str] = {}
    for name, spec in action.parameters.items():
        block = f"{_BLOCK}{name}"
        field = (state.get(block) or {}).get("value") or {}
        raw = field.get("value")
        if raw is None and field.get("selected_option"):
            raw = field["selected_option"].get("value")
        value = (raw or "").strip()
        problem = "is required" if not value else spec.check(value)
        if problem:
            errors[block] = f"{name} {problem}"
        else:
            values[name] = value
    return values, errors


def first_block(action: Action) -> str | None:
    """Where a problem that concerns the whole request is shown (its first field)."""
    return next((f"{_BLOCK}{name}" for name in action.parameters), None)


def notice(text: str) -> dict[str, Any]:
    """The modal replaced by a message (no submit button): why nothing was requested."""
    return {
        "type": "modal",
        "title": {"type": "plain_text", "text": "Request an action"},
        "close": {"type": "plain_text", "text": "Close"},
        "blocks": [render.section(text)],
    }
