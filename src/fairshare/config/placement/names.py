"""Queue-name helpers shared by the allocation parser and the placement rules
(docs/semantics.md §1.3.2, §1.5.1).

YARN trims queue, user and group names with its own table of Unicode whitespace
(``FairSchedulerUtilities``), which is neither Java's ``String.trim()`` nor Python's
``str.strip()``: it includes e.g. U+00A0 and U+3000 but not U+001C-U+001F.
"""

from __future__ import annotations

# The whitespace table of FairSchedulerUtilities (itself taken from Guava's CharMatcher).
QUEUE_NAME_WHITESPACE = (
    "\u2002\u3000\r\u0085\u200a\u2005\u2000\u2029\u000b\u2008\u2003\u205f\u1680"
    "\t \u2006\u2001\u202f\u00a0\u000c\u2009\u2004\u2028\n\u2007"
)

ROOT = "root"  # the root queue: its short and its full name
DEFAULT_QUEUE_NAME = "default"  # the queue a client asks for when it names none
DEFAULT_QUEUE_PATH = f"{ROOT}.{DEFAULT_QUEUE_NAME}"  # the full name of that queue
DOT = "."
DOT_REPLACEMENT = "_dot_"


def trim_queue_name(name: str) -> str:
    """Strip YARN's queue-name whitespace from both ends (§1.3.2)."""
    return name.strip(QUEUE_NAME_WHITESPACE)


def clean_name(name: str) -> str:
    """A user or group name as a queue name: trimmed, ``.`` → ``_dot_`` (§1.5.1)."""
    return trim_queue_name(name).replace(DOT, DOT_REPLACEMENT)


def assure_root(name: str) -> str:
    """Prefix ``root.`` unless the name already is ``root`` or starts with ``root.``.

    An empty name is returned unchanged, as YARN does (it only logs a warning).
    """
    if not name or name == ROOT or name.startswith(ROOT + DOT):
        return name
    return f"{ROOT}{DOT}{name}"


def is_valid_queue_name(name: str) -> bool:
    """YARN's placement-time check: equal to its trimmed form, not starting or ending with ``.``.

    Note that the empty string passes and ``a..b`` passes; the queue manager rejects those later.
    """
    return name == trim_queue_name(name) and not name.startswith(DOT) and not name.endswith(DOT)
