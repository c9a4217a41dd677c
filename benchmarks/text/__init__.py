"""Text as people type and send it: paragraphs, casual and misspelt input, names and numbers,
documents with markup."""
