"""Maintenance scripts: the view code generator, the font subset, the screenshots."""
