"""The floors files that ship: the BTC template is worth copying (floors that mean something,
each explained), and the smoke floors stay loadable for the workflow test."""

from __future__ import annotations

from pathlib import Path

import srsly

from spacy_span_eval import load_floors

CONFIGS = Path(__file__).resolve().parents[1] / "configs"
FIGURES = ("recall", "precision", "f", "min_support")


def test_the_btc_template_has_floors_worth_copying():
    floors = load_floors(CONFIGS / "floors_btc.yaml")
    assert (floors.strategy, floors.threshold) == ("two_sided", 0.5)
    by_label = {f.label: f for f in floors.floors}
    assert set(by_label) == {"PER", "LOC", "ORG"}
    for floor in by_label.values():
        assert floor.recall is not None and floor.recall >= 0.5, floor
        assert floor.precision is not None and floor.precision >= 0.5, floor
        # Enough gold spans that a recall floor is told apart within about 0.05.
        assert floor.min_support >= 300, floor


def test_every_floor_in_the_template_is_explained():
    lines = (CONFIGS / "floors_btc.yaml").read_text(encoding="utf-8").splitlines()
    data = srsly.yaml_loads("\n".join(lines))
    for label, figures in data["floors"].items():
        start = next(i for i, ln in enumerate(lines) if ln.strip() == f"{label}:")
        block = []
        for ln in lines[start + 1 :]:
            if ln.strip() and not ln.startswith("    "):
                break
            block.append(ln.strip())
        for figure in figures:
            at = next(i for i, ln in enumerate(block) if ln.startswith(f"{figure}:"))
            # A comment explains it, right above or above a sibling floor sharing the reason.
            assert any(ln.startswith("#") for ln in block[:at]), (label, figure)
    for key in data["gate"]:
        at = next(i for i, ln in enumerate(lines) if ln.strip().startswith(f"{key}:"))
        assert lines[at - 1].strip().startswith("#"), key


def test_the_smoke_floors_load():
    floors = load_floors(CONFIGS / "floors_smoke.json")
    assert [f.label for f in floors.floors] == ["PER"]
