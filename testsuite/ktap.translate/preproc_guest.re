print\("guest"\);
