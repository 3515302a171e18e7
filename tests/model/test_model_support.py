from __future__ import annotations

import pytest

from evaluator.errors import BadInputError
from evaluator.model import ModelClient, Prices, ScriptedModel, ScriptExhaustedError, Usage

ASK = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]


def test_scripted_model_replies_by_step_and_records_calls() -> None:
    model = ScriptedModel(["first", "second"], usage=Usage(7, 3))
    assert isinstance(model, ModelClient)
    assert model.complete(ASK, seed=1, temperature=0.0).content == "first"
    later = [*ASK, {"role": "assistant", "content": "first"}, {"role": "user", "content": "o"}]
    reply = model.complete(later, seed=1, temperature=0.0)
    assert (reply.content, reply.usage, reply.simulated) == ("second", Usage(7, 3), True)
    assert [c.seed for c in model.calls] == [1, 1]
    with pytest.raises(ScriptExhaustedError):
        model.complete([*later, {"role": "assistant", "content": "x"}], seed=1, temperature=0.0)


def test_scripted_model_accepts_a_function_of_the_messages() -> None:
    model = ScriptedModel(lambda messages: f"{len(messages)} messages")
    assert model.complete(ASK, seed=0, temperature=0.0).content == "2 messages"


def test_prices_load_and_cost(tmp_path) -> None:
    path = tmp_path / "prices.yaml"
    path.write_text("m-1: {input_per_mtok: 3, output_per_mtok: 15}\n")
    prices = Prices.load(path)
    assert prices.cost("m-1", Usage(1_000_000, 100_000)) == (pytest.approx(4.5), True)
    assert prices.cost("other", Usage(5, 5)) == (0.0, False)


def test_prices_errors_name_the_file_and_field(tmp_path) -> None:
    path = tmp_path / "prices.yaml"
    path.write_text("m-1: {input_per_mtok: -1, output_per_mtok: 15, extra: 1}\n")
    with pytest.raises(BadInputError, match=r"prices\.yaml: model 'm-1': input_per_mtok.*extra"):
        Prices.load(path)
