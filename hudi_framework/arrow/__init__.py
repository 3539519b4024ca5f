"""Arrow building blocks below every other kernel package: numpy vectors to Arrow arrays and back."""
