"""Item models of the window's tables. They live on the GUI thread; worker threads hand them
plain values through signals and never touch them."""
