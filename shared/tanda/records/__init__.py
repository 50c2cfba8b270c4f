"""The records the ports speak (DESIGN §2 kernel): indexed documents and chunks, conversations and
their messages, progress events. Pydantic models and dataclasses only; they import only the
contract."""
