"""The UECda protocol adapter: TCP tables of the computer Daifugō contest (protocol 20070)."""
