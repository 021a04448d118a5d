"""``combatsim serve``: a local web page on the real engine, and the HTTP JSON API it uses.

``folder`` confines every read and write to the served folder; ``pool`` is the warm worker
pool every run shares; ``jobs`` runs runs and studies in threads, bounded. Each resource is a
module holding its work and its routes: ``scenarios`` (list, read, save, check, build),
``runs`` (a run as ``combatsim run`` makes it, its tables and exact odds), ``story`` (a
typical and an unlucky battle of a run), ``studies``, ``traces``, ``maps``, ``calculators``
(the odds calculators), ``overview``, ``chainruns`` and ``designs``; ``app`` is the Starlette
app, its guard (Host, Origin and token) and the list of every module's routes. The web
stack (Starlette, uvicorn) is imported only here, and only by the
``serve`` command. docs/serve.md is the reference.
"""
