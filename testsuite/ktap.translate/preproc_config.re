print\("yes"\);
