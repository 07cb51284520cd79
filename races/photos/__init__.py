"""Photos of the signed sheets: checked images, matched to their tables by QR code."""
