"""The table's page: phones send their sheets to one local web page, readings are reviewed and corrected there."""
