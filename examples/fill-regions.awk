# fill-regions.awk: in a script `mps-migrate --script` wrote, put the lines
# of DIR/NAME.part (awk -v dir=DIR) in place of those between "# >>> NAME"
# and "# <<< NAME"; a region without a NAME.part file stays as it is.
#   awk -v dir=parts -f fill-regions.awk OP.py > OP-filled.py
/^# >>> / {
  print
  f = dir "/" $3 ".part"
  if ((getline line < f) > 0) {
    print line
    while ((getline line < f) > 0)
      print line
    close(f)
    skip = 1
  }
  next
}
/^# <<< / { skip = 0 }
!skip { print }
