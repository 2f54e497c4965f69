"""The state store's schema revisions, oldest first."""
