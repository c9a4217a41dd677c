"""A trained run -> a CTranslate2 model directory that mt.decode can search."""
