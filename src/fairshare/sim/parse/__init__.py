"""Scenario files read and checked: YAML with the line of every value, the schema, nodes and
workload apps as specified, ``expect`` matchers, timed changes. (How times and resources are
written for people is :mod:`fairshare.resources.display`.)"""
