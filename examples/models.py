"""What a model can do, its limits, and what a run cost (aiwrapper.models).

Run: python examples/models.py   (pip install "aiwrapper[models]" adds the models.dev catalogue)
"""

from aiwrapper import Lang
from aiwrapper.models import ModelCost, model_info, register_model

# aiwrapper's own rules know the models its providers act on; the optional catalogue knows
# some thousands more (context windows, prices, modalities).
claude = model_info("anthropic", "claude-opus-4-7")
assert claude is not None
print(
    f"claude-opus-4-7: tools={claude.tool_call}, thinking={claude.reasoning}, "
    f"structured output={claude.structured_output}, max output={claude.max_output_tokens}"
)
print("unknown models are simply unknown:", model_info("openai", "gpt-from-the-future"))

# Add a model, or override what is known about one, at runtime: here, prices for the
# offline model, so the run below has a cost.
register_model("offline", "offline", cost=ModelCost(input=0.5, output=1.5))
result = Lang.offline().ask_sync("How much does this cost?")
print(result.answer)
print(f"{result.usage.total_tokens} tokens, ${result.usage.cost:.8f}")
