"""CoDa (seeds 001/003): human colour distributions of 521 objects; reporting bias; LM probes."""
