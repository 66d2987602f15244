"""Pictures of game states: one drawing description, a numpy raster and an SVG backend.

Imported lazily by ``render_mode="rgb_array"`` / ``"svg"``; no Pillow (only GIF writing needs it).
"""
