"""Play and watch the games in a web browser: ``tabletop-envs serve`` (the ``web`` extra).

A thin layer over the envs and the agent registry, at the level of :mod:`tabletop_envs.watch`:

- :mod:`~tabletop_envs.web.config`: :class:`ServeConfig`, the options of ``serve`` (standard
  library only, so the command line loads without the extra);
- :mod:`~tabletop_envs.web.catalogue`: the envs, their parameters (read off each game's
  parameter dataclass) and default seats, for the page's form;
- :mod:`~tabletop_envs.web.views`: what one seat's page is sent about a position (its own
  picture, where its moves are, the legal ones from the action mask) and a record's frames;
- :mod:`~tabletop_envs.web.sessions`: the games being played and the records being stepped
  through, each under its own id, forgotten when idle;
- :mod:`~tabletop_envs.web.app`: the Starlette application and its JSON API (needs the extra);
- ``static/``: the page, plain ES modules and CSS (no build step).

Hidden information is kept on the server: a seat's page gets only that seat's view and the
moves as that seat saw them announced, never the state; a game with a human seat answers only
the holder of the seat's token.
"""
