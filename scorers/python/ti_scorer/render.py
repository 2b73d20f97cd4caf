"""How a rollout becomes PRM input text: the task instruction, then each step as text; every AGENT
step is followed by the step separator (the position where the PRM's score is read), while user,
system and environment steps are context only (their value is null).

Step text (agent step), lines present only when the field is::

    Thought: <reasoning>
    <message>
    $ <command>                      (shell action; keys actions use "Keys: <keys>")
    Tool call: <tool> <arguments>    (tool / edit / other actions; "Finish" for finish)
    Observation (exit code N):       ("Observation:" when the exit code is unknown)
    <output, cut to observationChars: head + "…[K chars cut]…" + tail>

Context steps render as ``User: <message>``, ``System: <message>`` or ``Environment:`` + output.
Any occurrence of the separator string inside rollout text is removed (``sanitise``) so that a
server which finds tags by token id (vLLM STEP pooling) sees exactly one tag per agent step.
"""

import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional

# A UTF-16 surrogate code point on its own (JSON "\\ud800" without its pair): not encodable as UTF-8,
# so a tokenizer or an HTTP body would fail on it. Replaced by U+FFFD, the mark the loader shows.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def well_formed(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (what every backend sends or tokenises;
    the Node client does the same before sending, src/core/scoring/input.ts)."""
    return _LONE_SURROGATE.sub("\ufffd", text) if _LONE_SURROGATE.search(text) else text


@dataclass
class RenderOptions:
    """observation_chars: cap per observation output (head/tail kept); strip: strings removed from text."""

    observation_chars: int = 2000
    strip: tuple = ()


@dataclass
class Part:
    """One step's text. ``scored`` parts are followed by the separator; ``index`` is the step index."""

    index: int
    text: str
    scored: bool


@dataclass
class RenderedRollout:
    """A rollout as the task instruction plus one Part per input step (in input order)."""

    id: str
    instruction: str
    parts: List[Part]

    @property
    def scored_indexes(self) -> List[int]:
        return [p.index for p in self.parts if p.scored]


def cut_middle(text: str, limit: int) -> str:
    """``text`` unchanged when at most ``limit`` characters, else its head and tail with a marker
    saying how many characters were cut (``limit`` <= 0 means no cap)."""
    if limit <= 0 or len(text) <= limit:
        return text
    head = limit // 2
    tail = limit - head
    return f"{text[:head]}\n…[{len(text) - limit} chars cut]…\n{text[len(text) - tail:]}"


def sanitise(text: str, strip: tuple) -> str:
    """``text`` with every lone surrogate replaced (``well_formed``) and every string of ``strip``
    removed (repeatedly, so removal cannot form a new one)."""
    text = well_formed(text)
    for s in strip:
        if not s:
            continue
        while s in text:
            text = text.replace(s, "")
    return text


def step_text(step: Dict[str, Any], opts: RenderOptions) -> str:
    """The text of one protocol ScoreStep (see the module docstring for the layout), no trailing newline."""
    lines: List[str] = []
    role = step.get("role")
    msg = step.get("message") or ""
    if role == "agent":
        if step.get("reasoning"):
            lines.append(f"Thought: {step['reasoning']}")
        if msg:
            lines.append(msg)
        for a in step.get("actions") or []:
            kind = a.get("kind")
            cmd = a.get("command")
            tool = a.get("tool")
            args = a.get("arguments")
            if kind == "shell" and cmd is not None:
                lines.append(f"$ {cmd}")
            elif kind == "keys" and cmd is not None:
                lines.append(f"Keys: {cmd}")
            elif kind == "finish":
                lines.append("Finish" + (f": {args}" if args else ""))
            else:
                call = " ".join(x for x in (tool or kind or "action", args or cmd or "") if x)
                lines.append(f"Tool call: {call}")
    elif role == "user":
        lines.append(f"User: {msg}")
    elif role == "system":
        lines.append(f"System: {msg}")
    else:
        lines.append("Environment:" + (f" {msg}" if msg else ""))
    for o in step.get("observations") or []:
        ec = o.get("exitCode")
        head = "Observation" + (f" (exit code {ec})" if ec is not None else "") + ":"
        if role == "environment":
            head = f"Output (exit code {ec}):" if ec is not None else "Output:"
        out = cut_middle(o.get("output") or "", opts.observation_chars)
        lines.append(head)
        if out:
            lines.append(out)
    return sanitise("\n".join(lines), opts.strip)


def render_rollout(rollout: Dict[str, Any], opts: RenderOptions) -> RenderedRollout:
    """Render a protocol ScoreRollout: agent steps are scored parts (text without trailing newline,
    the separator follows), other roles context parts (text ending with a newline)."""
    task = rollout.get("task") or {}
    instruction = sanitise(task.get("instruction") or "", opts.strip)
    parts = []
    for s in rollout.get("steps") or []:
        scored = s.get("role") == "agent"
        text = step_text(s, opts)
        # Context steps end with a newline; scored steps end with the separator instead.
        parts.append(Part(index=s["index"], text=text if scored else text + "\n", scored=scored))
    return RenderedRollout(id=rollout["id"], instruction=instruction, parts=parts)


def render_text(r: RenderedRollout, prefix: str, separator: str, suffix: str = "", upto: Optional[int] = None) -> str:
    """One string: ``prefix`` + each part's text, the separator after every scored part, + ``suffix``.
    ``upto`` (a position in ``r.parts``) stops after that part (for per-prefix prompts)."""
    out = [prefix]
    for k, p in enumerate(r.parts):
        out.append(p.text)
        if p.scored:
            out.append(separator)
        if upto is not None and k >= upto:
            break
    out.append(suffix)
    return "".join(out)
