"""Does `acode review` decide right: accuracy on paired changes, real commits both ways, bugs no test shows,
the history evidence's false alarms, and the scoring of stored reviews."""
