"""A rule system that lives outside combatsim: coin flips for hits, one point of damage each.

The example of docs/writing-a-rule-system.md, which shows these files verbatim."""
