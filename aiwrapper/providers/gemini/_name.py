"""The name this provider goes by in results, kept state and the model tables; light to import."""

PROVIDER = "gemini"
