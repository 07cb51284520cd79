"""The event away's top floor: what reads and writes the day's rows (qualifying, races,
results, photos) for the way back, its landing on the hosted server, the API and the desk."""
