"""tests/web/history's contract and property tests, run on PostgreSQL (conftest.py gives
``history_url`` a new database on the session's server)."""

from tests.web.history.test_history import *  # noqa: F403
from tests.web.history.test_tiers import *  # noqa: F403
