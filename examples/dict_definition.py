"""A tool defined as a plain dict, executed by a function_handler.

Run: python examples/dict_definition.py
"""

from aiwrapper import FunctionCall, Lang

search_docs = {
    "name": "search_docs",
    "description": "Search the documentation.",
    "parameters": {
        "query": {"type": "string", "description": "What to look for", "required": True},
        "limit": {"type": "integer", "description": "How many hits"},
    },
}


def handler(call: FunctionCall) -> list[str]:
    # arguments are already parsed and checked against the definition's schema
    return [f"hit for {call.arguments['query']!r}"][: call.arguments.get("limit", 5)]


lang = Lang.from_env()
result = lang.ask_sync("How do I stream?", functions=[search_docs], function_handler=handler)
print(result.function_calls)
print(result.answer)
lang.close()
