(coin.transfer (read-msg "from") (read-msg "to") (read-decimal "amount"))
