"""Browser tests: the report in Debian's chromium, driven by Playwright (``make test-browser``;
not collected by ``make test``, which must run where there is no browser)."""
