"""Images of game states (numpy only; imported lazily by ``render_mode="rgb_array"``)."""
