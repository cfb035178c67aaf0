"""The model table: every id it offers resolves to its own row, no SDK id borrows another model's price, and an
unknown price is reported as unknown (never $0) by /cost and the headless result."""

from __future__ import annotations

import asyncio
import io
import re
import typing
from pathlib import Path

from anthropic.types import Model as AnthropicModel
from openai.types.shared import ChatModel, ResponsesModel
from rich.console import Console

from pseudoclaude.config import Flags, load_settings
from pseudoclaude.llm import PROVIDERS, Usage, cache_prices, context_window, model_info, price_known, reasoning_style, request_cost
from pseudoclaude.llm.models import CACHE_PRICES, table_info
from pseudoclaude.llm.providers import ModelRow
from pseudoclaude.tui.repl import Repl
from pseudoclaude.tui.slash import dispatch

ROWS = [(entry, row) for entry in PROVIDERS for row in entry.models]


def _literals(alias: object) -> set[str]:
    """The string literals inside an SDK type alias (unions of Literal[...] and str)."""
    found: set[str] = set()
    for arg in typing.get_args(alias):
        if isinstance(arg, str):
            found.add(arg)
        else:
            found |= _literals(arg)
    return found


SDK_IDS = {"anthropic": _literals(AnthropicModel), "openai": _literals(ChatModel) | _literals(ResponsesModel)}


def test_every_offered_id_resolves_to_its_own_rows_window_prices_and_reasoning() -> None:
    for entry, row in ROWS:
        for model in row.full_ids():
            info = model_info(model)
            assert info is not None and info.provider == entry.name, model
            assert (info.context_window, info.input_per_mtok, info.output_per_mtok) == (row.context_window, row.input_per_mtok, row.output_per_mtok), model
            assert context_window(model) == row.context_window and reasoning_style(model) == row.reasoning, model
            assert (info.max_output_tokens, info.vision, info.encoding) == (row.max_output_tokens, row.vision, row.encoding), model
            assert price_known(model) == bool(row.input_per_mtok or row.output_per_mtok), model


def test_a_rows_own_cache_prices_replace_the_providers_multiples() -> None:
    own = [(entry, row) for entry, row in ROWS if row.input_per_mtok and (row.cache_read_per_mtok or row.cache_write_per_mtok)]
    assert own, "the table has rows with their own cache prices"
    for entry, row in own:
        model = row.full_ids()[0]
        prices, base = cache_prices(model), CACHE_PRICES[entry.name]
        read = row.cache_read_per_mtok if row.cache_read_per_mtok is not None else base.read * row.input_per_mtok
        write = row.cache_write_per_mtok if row.cache_write_per_mtok is not None else base.write * row.input_per_mtok
        cost = request_cost(model, Usage(input_tokens=0, output_tokens=0, cache_read_tokens=50_000, cache_write_tokens=50_000))
        assert cost is not None and abs(cost - (read + write) / 20) < 1e-9, model  # below any long-prompt line
        assert abs(prices.read * row.input_per_mtok - read) < 1e-9 and abs(prices.write * row.input_per_mtok - write) < 1e-9


def _same_model(row: ModelRow, model: str) -> bool:
    """``model`` is one the row names, or a dated snapshot of one (``-2025-04-14``, ``-20251001``)."""
    names = row.full_ids() or (row.prefix,)
    return any(model == name or re.fullmatch(re.escape(name) + r"-(\d{4}-\d{2}-\d{2}|\d{8})", model) for name in names)


def test_no_current_sdk_id_is_priced_by_another_models_row() -> None:
    """A new model caught by an older family's prefix (gpt-5.5 by ``gpt-5.``) would be billed at that family's price."""
    current = re.compile(r"^(claude-|gpt-5\.[4-9]|gpt-6)")
    for entry in PROVIDERS:
        for model in sorted(SDK_IDS[entry.name]):
            if not current.match(model):
                continue
            row, info = entry.model_row(model), table_info(model)
            assert row is not None and info is not None, model
            if info.priced:
                assert _same_model(row, model), f"{model} is priced by the row of {row.full_ids() or row.prefix}"


def test_a_variant_the_table_does_not_name_keeps_its_familys_window_and_gets_no_guessed_price() -> None:
    """The SDK's ids grow between releases (openai 3.60 added ``gpt-6.2-sol-healthcare``): a variant under a priced
    row's id is budgeted with the family's window, its cost is unknown rather than the family's, and a dated
    snapshot of the id keeps the price."""
    priced = [(row, known) for entry in PROVIDERS for row in entry.models for known in row.full_ids() if row.input_per_mtok]
    assert priced
    for row, known in priced:
        variant, snapshot = table_info(f"{known}-healthcare"), table_info(f"{known}-20260101")
        assert variant is not None and variant.context_window == row.context_window and not price_known(f"{known}-healthcare"), known
        assert snapshot is not None and snapshot.input_per_mtok == row.input_per_mtok, known


def test_every_anthropic_sdk_id_has_a_row_of_its_own_but_the_deprecated_ones() -> None:
    from anthropic._data import DEPRECATED_MODELS

    anthropic = next(entry for entry in PROVIDERS if entry.name == "anthropic")
    for model in SDK_IDS["anthropic"] - set(DEPRECATED_MODELS):
        row = anthropic.model_row(model)
        assert row is not None and row.full_ids() and _same_model(row, model), model


def _repl(tmp_path: Path, model: str) -> Repl:
    env = {"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "k", "PSEUDOCLAUDE_HOME": str(tmp_path / "home")}
    settings = load_settings(tmp_path, Flags(model=model), environ=env)
    return Repl(settings, Console(file=io.StringIO(), width=300, color_system=None))


def _cost_output(tmp_path: Path, model: str) -> str:
    repl = _repl(tmp_path, model)

    async def go() -> None:
        assert await repl.open_agent()
        try:
            await dispatch(repl, "/cost")
        finally:
            await repl.close_agent()

    asyncio.run(go())
    return repl.console.file.getvalue()  # type: ignore[attr-defined]


def test_cost_says_unknown_for_a_table_model_without_a_confirmed_price(tmp_path: Path) -> None:
    unpriced = next(model for _, row in ROWS for model in row.full_ids() if not price_known(model))
    text = " ".join(_cost_output(tmp_path, unpriced).split())
    assert f"estimated cost unknown: no price is known for {unpriced}" in text
    assert "$0.0000 (" not in text


def test_cost_shows_the_estimate_for_a_priced_model(tmp_path: Path) -> None:
    priced = next(model for _, row in ROWS for model in row.full_ids() if price_known(model))
    text = " ".join(_cost_output(tmp_path, priced).split())
    assert f"estimated cost $0.0000 ({priced})" in text and "unknown" not in text


def test_a_long_prompt_surcharge_applies_to_the_whole_call_once_its_prompt_passes_the_line() -> None:
    from pseudoclaude.llm import cost_usd

    long_rows = [row for _, row in ROWS if row.long_prompt is not None]
    assert long_rows, "the table has rows with a published long-prompt surcharge"
    for row in long_rows:
        model, line = row.full_ids()[0], row.long_prompt
        assert line is not None
        at_line = Usage(input_tokens=line.above_tokens - 1000, cache_read_tokens=1000, output_tokens=500)
        over = Usage(input_tokens=line.above_tokens - 1000, cache_read_tokens=1001, output_tokens=500)
        flat = cost_usd(model, over.input_tokens, 0, over.cache_read_tokens)
        assert request_cost(model, at_line) == cost_usd(model, at_line.input_tokens, 500, at_line.cache_read_tokens)
        assert abs((request_cost(model, over) or 0) - (flat * line.input_factor + cost_usd(model, 0, 500) * line.output_factor)) < 1e-12
