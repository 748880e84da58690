# fill.awk: in an mps-run script, put the lines of DIR/NAME.part (awk -v
# dir=DIR) in place of those between "# >>> NAME" and "# <<< NAME"
/^# >>> / { name = $3; print; while ((getline line < (dir "/" name ".part")) > 0) print line; skip = 1; next }
/^# <<< / { skip = 0 }
!skip { print }
