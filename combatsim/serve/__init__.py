"""``combatsim serve``: a local web page on the real engine, and the HTTP JSON API it uses.

``folder`` confines every read and write to the served folder; ``pool`` is the warm worker
pool every run shares; ``jobs`` runs runs and studies in threads, bounded; ``runs`` is a run
as ``combatsim run`` makes it; ``extras`` the page's other routes (scenario views, checks,
studies, traces, odds, the folder overview); ``app`` the Starlette app and its guard (Host
header and token). The web stack (Starlette, uvicorn) is imported only here, and only by the
``serve`` command. docs/serve.md is the reference.
"""
