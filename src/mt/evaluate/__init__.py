"""Measuring a run or an export: the thesis' metrics, the field's scores, test sets, calibration."""
