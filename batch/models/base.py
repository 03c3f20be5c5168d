"""The model interface and the one way every node asks a model for a structured answer.

A provider implements `RoleModel.complete` (messages + JSON schema -> text and token
counts). `ask` does the rest for all providers alike: checks the prompt fits the
context, times the call, parses and validates the answer, and retries once. The retry
shows the validation error to the model, unless the answer was cut off at max_tokens:
then the same prompt is sent again with room to finish (max_tokens doubled, within
num_ctx), or, when there is no such room, with a request for a shorter text. A second
invalid answer raises ModelOutputInvalid: an answer that does not parse is never taken
as success. The words of the retry turns are batch/prompts/retry_*.md.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import threading
import time
import weakref
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from batch.draft_cleanup import encodable
from batch.errors import ModelOutputInvalid, PromptTooLong
from batch.models.budget import charge_call, check_room
from batch.models.journal import CallRecord, journal
from batch.prompts import fragment

T = TypeVar("T", bound=BaseModel)

# Chat templates add a few tokens per message around the content.
MESSAGE_OVERHEAD_TOKENS = 8
# After a cut-off answer the retry asks for this many times the tokens (x2, and at least
# x1.5 or it is not worth resending the same prompt: ask for a shorter text instead).
TRUNCATED_GROWTH = 2.0
TRUNCATED_MIN_GROWTH = 1.5


@dataclass(frozen=True)
class Completion:
    text: str
    input_tokens: int
    output_tokens: int
    truncated: bool = False  # stopped at max_tokens
    host: str = ""  # the server that answered (no credentials); "" for the embedded model


@dataclass(frozen=True)
class Sampling:
    """A per-call change to how the answer is sampled: another draft of the same prompt
    (best-of-N, several tries at one repair) needs another seed or temperature, or it
    is the same answer again. None keeps the configured value."""

    temperature: float | None = None
    seed: int | None = None


@dataclass(frozen=True)
class CallStat:
    role: str
    model: str
    input_tokens: int
    output_tokens: int
    seconds: float
    ok: bool
    truncated: bool = False  # the answer stopped at max_tokens
    host: str = ""  # Completion.host


class RoleModel(ABC):
    """One configured model for one role (writer, critic, finalizer)."""

    def __init__(self, name: str, num_ctx: int, max_tokens: int):
        self.name = name
        self.num_ctx = num_ctx
        self.max_tokens = max_tokens

    @abstractmethod
    def complete(
        self,
        messages: list[dict[str, str]],
        schema: dict | None,
        max_tokens: int | None = None,
        sampling: Sampling | None = None,
    ) -> Completion:
        """Send the chat messages; the answer must follow the JSON schema, or, with
        schema None, is plain text (ended early when it starts repeating itself, where
        the provider can see that as it generates).

        `max_tokens` overrides the configured limit for this call (None: the configured),
        `sampling` the temperature or seed.
        """

    def count_tokens(self, text: str) -> int:
        # Providers without a tokenizer at hand: ~3 characters a token over-counts
        # English and code; other scripts take up to a token or more per character
        # (Chinese ~2), so those count double. A prompt that passes this check fits.
        non_ascii = 0 if text.isascii() else len(text) - len(text.encode("ascii", "ignore"))
        return (len(text) - non_ascii) // 3 + 2 * non_ascii + 1


def _prompt_tokens(model: RoleModel, messages: list[dict[str, str]]) -> int:
    return sum(model.count_tokens(m["content"]) + MESSAGE_OVERHEAD_TOKENS for m in messages)


def check_fits(
    model: RoleModel, messages: list[dict[str, str]], max_tokens: int | None = None
) -> int:
    """The prompt's token count; PromptTooLong when it and the answer exceed num_ctx."""
    answer = model.max_tokens if max_tokens is None else max_tokens
    needed = _prompt_tokens(model, messages)
    if needed + answer > model.num_ctx:
        raise PromptTooLong(
            f"{model.name}: the prompt needs about {needed} tokens plus {answer} "
            f"for the answer, more than num_ctx = {model.num_ctx}; raise num_ctx for this "
            f"role or shorten the brief"
        )
    return needed


def parse_answer(text: str, answer_type: type[T]) -> T:
    """JSON text -> validated model. Raises ValueError with a message fit for the model."""
    try:
        # llama.cpp's grammar lets raw newlines into strings; strict=False accepts them.
        data = encodable(json.loads(text, strict=False))
    except json.JSONDecodeError as e:
        raise ValueError(f"the answer is not valid JSON ({e.msg} at character {e.pos})") from None
    try:
        return answer_type.model_validate(data)
    except ValidationError as e:
        problems = "; ".join(
            f"{'.'.join(map(str, err['loc'])) or 'answer'}: {err['msg']}" for err in e.errors()[:5]
        )
        raise ValueError(f"the answer does not match the schema: {problems}") from None


# A plain-text answer that repeats itself: one line over and over, or a long line
# (a sentence, a paragraph) said again and again.
REPEATED_LINE_RUN = 4  # the same line this many times in a row
REPEATED_LONG_LINE = 3  # a line of REPEATED_LONG_CHARS or more this many times in all
REPEATED_LONG_CHARS = 25


def repeated(text: str) -> str | None:
    """The line a plain-text answer keeps repeating, if it has run away like that."""
    lines = [ln.strip() for ln in text.splitlines()]
    run, last = 0, None
    counts: dict[str, int] = {}
    for line in lines:
        if not line:
            continue
        run = run + 1 if line == last else 1
        last = line
        if run >= REPEATED_LINE_RUN:
            return line
        if len(line) >= REPEATED_LONG_CHARS:
            counts[line] = counts.get(line, 0) + 1
            if counts[line] >= REPEATED_LONG_LINE:
                return line
    return runaway(text) if len(text) >= 400 else None


def runaway(text: str) -> str | None:
    """The unit a cut-off answer kept repeating at its end ("```" line after line), if it
    ran away like that: more room would only hold more of it."""
    tail = text[-400:]
    for m in re.finditer(r"(.{1,40}?)(?:\1){7,}", tail, re.DOTALL):
        # the repetition runs to the end, but for a last unit cut off part way
        if m.group(1).strip() and len(tail) - m.end() < len(m.group(1)):
            return m.group(1).strip()
    return None


def retry_after_truncation(
    model: RoleModel, messages: list[dict[str, str]], max_tokens: int, text: str = ""
) -> tuple[list[dict[str, str]], int]:
    """The messages and max_tokens for the retry of an answer cut off at `max_tokens`.

    Never the identical call: either the same prompt with room to finish (max_tokens
    doubled, at least +50 %, prompt + max_tokens within num_ctx), or, when num_ctx has
    no such room, the prompt plus a request for a shorter text, with max_tokens as
    large as still fits (the same, or less by the few tokens of that request).
    """
    room = model.num_ctx - _prompt_tokens(model, messages)
    larger = min(math.ceil(max_tokens * TRUNCATED_GROWTH), room)
    repeated = runaway(text)
    if repeated is not None:
        retry = [
            *messages,
            {
                "role": "user",
                "content": fragment(
                    "retry_runaway", repeated=repr(repeated[:40]), max_tokens=max_tokens
                ),
            },
        ]
        fits = model.num_ctx - _prompt_tokens(model, retry)
        return retry, max(1, min(max_tokens, fits))
    if larger >= max_tokens * TRUNCATED_MIN_GROWTH:
        return list(messages), larger
    retry = [
        *messages,
        {"role": "user", "content": fragment("retry_shorter", max_tokens=max_tokens)},
    ]
    fits = model.num_ctx - _prompt_tokens(model, retry)
    return retry, max(1, min(max(larger, max_tokens), fits))


# The JSON schema of each answer class, made once: pydantic builds it anew on every
# model_json_schema() call (a few hundred microseconds for ours), and every call of a
# role sends the same one. Weak keys: the critic's answer class is made per rubric
# (batch.loop.answers.critic_schema_of), and one dropped there must not be kept alive here.
_SCHEMAS: weakref.WeakKeyDictionary[type[BaseModel], dict[str, Any]] = weakref.WeakKeyDictionary()
_SCHEMAS_LOCK = threading.Lock()


def json_schema_of(answer_type: type[BaseModel]) -> dict[str, Any]:
    """`answer_type.model_json_schema()`, built once per class. The dict is shared:
    whoever receives it reads it, never changes it."""
    schema = _SCHEMAS.get(answer_type)
    if schema is None:
        schema = answer_type.model_json_schema()
        with _SCHEMAS_LOCK:  # WeakKeyDictionary is not safe for concurrent writers
            schema = _SCHEMAS.setdefault(answer_type, schema)
    return schema


def _complete(
    model: RoleModel,
    role: str,
    messages: list[dict[str, str]],
    schema: dict[str, Any] | None,
    max_tokens: int,
    sampling: Sampling | None,
    attempt: int,
) -> tuple[Completion, float]:
    """One call, timed and charged to the thread's budget; a call that raises is
    journaled with its error, then re-raised. A call the budget has no room for is not
    made (OutOfBudget)."""
    check_room()
    started = time.perf_counter()
    try:
        completion = model.complete(messages, schema, max_tokens=max_tokens, sampling=sampling)
    except Exception as e:
        seconds = time.perf_counter() - started
        charge_call(seconds)
        journal(
            CallRecord(
                role,
                model.name,
                messages,
                "",
                seconds,
                attempt=attempt,
                problem=f"{e.__class__.__name__}: {e}",
            )
        )
        raise
    seconds = time.perf_counter() - started
    charge_call(seconds)
    return completion, seconds


def _journal(
    role: str,
    model: RoleModel,
    messages: list[dict[str, str]],
    completion: Completion,
    seconds: float,
    attempt: int,
    problem: str,
) -> None:
    journal(
        CallRecord(
            role,
            model.name,
            messages,
            encodable(completion.text),
            seconds,
            completion.input_tokens,
            completion.output_tokens,
            completion.host,
            attempt,
            problem,
        )
    )


def write(
    model: RoleModel,
    role: str,
    messages: list[dict[str, str]],
    stats: list[CallStat],
    sampling: Sampling | None = None,
    max_tokens: int | None = None,
) -> str:
    """Ask for plain text (a draft, never carried inside JSON); one CallStat per call.

    An answer that repeats itself or is cut off at max_tokens is retried once, never as
    the same call: with a note saying what went wrong, on another seed. A second such
    answer raises ModelOutputInvalid. An empty answer is returned as it is: the checks
    judge an empty draft (it scores nothing)."""
    limit = model.max_tokens if max_tokens is None else max_tokens
    attempt_messages = list(messages)
    problem = ""
    for attempt in (1, 2):
        check_fits(model, attempt_messages, limit)
        completion, seconds = _complete(
            model, role, attempt_messages, None, limit, sampling, attempt
        )
        text = encodable(completion.text)
        loop = repeated(text)
        stat = CallStat(
            role,
            model.name,
            completion.input_tokens,
            completion.output_tokens,
            seconds,
            ok=not (loop or completion.truncated),
            truncated=completion.truncated,
            host=completion.host,
        )
        stats.append(stat)
        if loop is not None:
            problem = f"the answer kept repeating {loop[:60]!r}"
            note = fragment("retry_repeating", repeated=repr(loop[:80]))
        elif completion.truncated:
            problem = f"the answer was cut off at max_tokens = {limit}"
            note = fragment("retry_cut_off", max_tokens=limit)
        _journal(
            role, model, attempt_messages, completion, seconds, attempt, "" if stat.ok else problem
        )
        if stat.ok:
            return text
        attempt_messages = [*messages, {"role": "user", "content": note}]
        base = sampling or Sampling()
        sampling = Sampling(
            temperature=base.temperature, seed=(base.seed if base.seed is not None else 7) + 1000
        )
    raise ModelOutputInvalid(f"{role} ({model.name}) gave no usable text twice: {problem}")


def ask(
    model: RoleModel,
    role: str,
    messages: list[dict[str, str]],
    answer_type: type[T],
    stats: list[CallStat],
    sampling: Sampling | None = None,
    max_tokens: int | None = None,
) -> T:
    """Ask for a structured answer; appends one CallStat per call to `stats`.
    `sampling` and `max_tokens` override the configured ones for this question."""
    schema = json_schema_of(answer_type)
    attempt_messages = list(messages)
    max_tokens = model.max_tokens if max_tokens is None else max_tokens
    last_problem = ""
    for attempt in (1, 2):
        check_fits(model, attempt_messages, max_tokens)
        completion, seconds = _complete(
            model, role, attempt_messages, schema, max_tokens, sampling, attempt
        )
        stat = CallStat(
            role,
            model.name,
            completion.input_tokens,
            completion.output_tokens,
            seconds,
            ok=True,
            truncated=completion.truncated,
            host=completion.host,
        )
        try:
            answer = parse_answer(completion.text, answer_type)
        except ValueError as e:
            problem = str(e)
            if completion.truncated:
                problem += f" (the answer was cut off at max_tokens = {max_tokens})"
            _journal(role, model, attempt_messages, completion, seconds, attempt, problem)
            stats.append(dataclasses.replace(stat, ok=False))
            last_problem = problem
            if attempt == 1:
                if completion.truncated:
                    attempt_messages, max_tokens = retry_after_truncation(
                        model, messages, max_tokens, completion.text
                    )
                else:
                    attempt_messages = [
                        *messages,
                        {"role": "assistant", "content": completion.text[:2000]},
                        {"role": "user", "content": fragment("retry_invalid", problem=problem)},
                    ]
            continue
        _journal(role, model, attempt_messages, completion, seconds, attempt, "")
        stats.append(stat)
        return answer
    raise ModelOutputInvalid(f"{role} ({model.name}) gave an invalid answer twice: {last_problem}")
