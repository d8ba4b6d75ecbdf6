/** The default consent disclosure in French, one entry per paragraph (see ../consent-text.ts). */
export const fr: readonly string[] = [
  'Consentement à l’utilisation de documents et de signatures électroniques',
  'L’expéditeur de ce document souhaite vous le transmettre et recueillir votre signature par voie électronique. Avant de poursuivre, veuillez lire les informations suivantes.',
  'Exemplaire papier. Vous avez le droit de recevoir plutôt ce document sur papier. Pour demander un exemplaire papier, contactez l’expéditeur au moyen des coordonnées dont vous disposez déjà ; il peut facturer des frais raisonnables s’il vous en informe. Après la signature, vous recevrez le document finalisé par e-mail et pourrez l’imprimer.',
  'Retrait de votre consentement. Vous pouvez retirer à tout moment avant de signer votre consentement à procéder par voie électronique, en choisissant « Je n’accepte pas » sur cette page ou en informant l’expéditeur. Le retrait met fin à cette demande de signature électronique : le document est refusé, et l’expéditeur doit vous le remettre sur papier ou par un autre moyen. Le retrait est sans effet sur la valeur juridique de ce que vous avez signé électroniquement auparavant.',
  'Champ d’application. Votre consentement s’applique à ce document et aux notifications le concernant que nous vous adressons par e-mail.',
  'Matériel et logiciels. Vous avez besoin d’un appareil connecté à Internet, d’un navigateur web à jour (par exemple une version récente de Chrome, Edge, Firefox ou Safari) avec JavaScript activé, d’une adresse e-mail, ainsi que de la possibilité d’afficher et d’enregistrer ou d’imprimer des fichiers PDF.',
  'Mise à jour de vos coordonnées. Si votre adresse e-mail ou vos autres coordonnées changent, informez-en l’expéditeur afin qu’il puisse vous joindre au sujet de ce document.',
  'En choisissant « J’accepte », vous confirmez que vous pouvez accéder aux présentes informations et à des documents au format PDF et les lire, et que vous consentez à l’utilisation de documents et de signatures électroniques pour ce document.',
];
