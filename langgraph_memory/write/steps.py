"""The write path one step at a time, to test or evaluate a model on each step.

``MemoryWriter.write_turn`` runs these in order; calling them apart shows what each makes
of a turn, a fact or a model's answer, with no store:

- ``may_hold_fact``: the gate, which skips turns that cannot hold a fact (no model);
- ``extract``: a turn's facts, as the writer keeps them from the model's answer;
- ``validate``: the decision a model's reconcile choice stands for, as the writer applies it;
- ``unopposed``: the decision for a fact the scope holds nothing to compare with: ADD, noted
  ``NOTHING_SIMILAR``, with no model call;
- ``ask``: a structured answer from any chat model (tool calling, else JSON in plain text).

>>> from datetime import datetime, timezone
>>> from langgraph_memory.write import Choice, Fact, RulesModel, Turn
>>> said = "I'm allergic to peanuts."
>>> may_hold_fact(said), may_hold_fact("thanks!")
(True, False)
>>> turn = Turn.of([("user", said)], when=datetime(2026, 3, 2, tzinfo=timezone.utc))
>>> [f.text for f in extract(turn, model=RulesModel()).facts]
['User is allergic to peanuts.']
>>> validate(Choice("UPDATE", 7), Fact("User is allergic to peanuts."), []).op.value
'ADD'
"""

from langgraph_memory.write.extract import extract
from langgraph_memory.write.gate import may_hold_fact
from langgraph_memory.write.reconcile import NOTHING_SIMILAR, unopposed, validate
from langgraph_memory.write.structured import ask

__all__ = ["NOTHING_SIMILAR", "ask", "extract", "may_hold_fact", "unopposed", "validate"]
