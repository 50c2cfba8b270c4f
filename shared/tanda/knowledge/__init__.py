"""Knowledge queries for agent hosts (KB-01 … KB-07): pure functions over the kernel's shapes —
fitting a result into a code-point budget with cursors (``paging``, ``cursors``), checking a
verbatim quote against a node's text (``quotes``), the registered governing rules
(``governing_rules``) and the binding verifier of structured answers (``answers``)."""
